import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { AccountId, TransactionId } from "../../domain/ids.ts"
import { SecondPaymentRepo } from "../../ports/SecondPaymentRepo.ts"
import { traced } from "./traced.ts"

const Row = Schema.Struct({
  id: Schema.String,
  transactionId: TransactionId,
  rail: Schema.Literal("pix", "barcode"),
  reference: Schema.String,
  amount: Schema.NumberFromString,
  paidAt: Schema.DateFromSelf,
  status: Schema.Literal("to_return", "returning", "returned")
})

const OwnedRow = Schema.extend(Row, Schema.Struct({ accountId: AccountId }))
const columns = `id, account_id as "accountId", transaction_id as "transactionId", rail, reference,
  amount::text as amount, paid_at as "paidAt", status`
const Returning = Schema.Struct({ accountId: AccountId, transactionId: TransactionId, amount: Schema.NumberFromString })
const Claimed = Schema.Struct({
  id: Schema.String,
  accountId: AccountId,
  transactionId: TransactionId,
  txid: Schema.String,
  endToEndId: Schema.String,
  amount: Schema.NumberFromString,
  askedAgain: Schema.Number
})
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const SecondPaymentRepoLive = Layer.effect(
  SecondPaymentRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return SecondPaymentRepo.of(
      traced("SecondPaymentRepo", {
        record: (accountId, p) =>
          // A slip's payment named by its retorno occurrence finds one recorded before migration 0055 under the
          // fixed reference `barcode` (then one per slip): the same amount settled the same São Paulo day, it is
          // that payment, renamed, not another to return; another day's is a second liquidation of its own.
          sql`
          with adopted as (
            update bolepix_second_payments set reference = ${p.reference}
            where ${p.rail}::text = 'barcode' and ${p.reference}::text <> 'barcode'
              and account_id = ${accountId} and transaction_id = ${p.transactionId}
              and rail = 'barcode' and reference = 'barcode' and amount = ${p.amount}::bigint
              and (paid_at at time zone 'America/Sao_Paulo')::date
                = (${p.paidAt}::timestamptz at time zone 'America/Sao_Paulo')::date
            returning id
          )
          insert into bolepix_second_payments
            (id, account_id, transaction_id, rail, reference, amount, paid_at, status)
          select ${p.id}::uuid, ${accountId}::uuid, ${p.transactionId}::uuid, ${p.rail}::text, ${p.reference}::text,
            ${p.amount}::bigint, ${p.paidAt}::timestamptz, ${p.status}::text
          where not exists (select 1 from adopted)
          on conflict (transaction_id, rail, reference) do nothing
          returning id`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.length === 1)
          ),
        setStatus: (accountId, id, status) =>
          sql`
          update bolepix_second_payments
          set status = ${status}, returned_at = ${status === "returned" ? sql`now()` : null}
          where account_id = ${accountId} and id = ${id}`.pipe(Effect.orDie, Effect.asVoid),
        open: (limit) =>
          sql`
          select ${sql.literal(columns)} from bolepix_second_payments where status <> 'returned'
          order by created_at, id limit ${limit}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(OwnedRow))),
            Effect.orDie
          ),
        findForUpdate: (id) =>
          // By its primary key; anything that is not a UUID names none of them.
          UUID.test(id)
            ? sql`select ${sql.literal(columns)} from bolepix_second_payments where id = ${id} for update`.pipe(
                Effect.flatMap(Schema.decodeUnknown(Schema.Array(OwnedRow))),
                Effect.orDie,
                Effect.map((rows) => Option.fromNullable(rows[0]))
              )
            : Effect.succeed(Option.none()),
        findReturning: (id, mode) =>
          // The id is ours (a UUID); anything else a PSP reports is not one of them.
          UUID.test(id)
            ? sql`
          select s.account_id as "accountId", s.transaction_id as "transactionId", s.amount::text as amount
          from bolepix_second_payments s join accounts a on a.id = s.account_id and a.mode = ${mode}
          where s.id = ${id} and s.status = 'returning'`.pipe(
                Effect.flatMap(Schema.decodeUnknown(Schema.Array(Returning))),
                Effect.map((rows) => Option.fromNullable(rows[0])),
                Effect.orDie
              )
            : Effect.succeed(Option.none()),
        claimAskAgain: (policy) =>
          // One statement: the due rows locked (those another claim holds skipped), marked asked, returned
          // with the charge's txid (a bolepix keeps it in details.pix; the payment's own as a fallback).
          sql`
          with due as (
            select id from bolepix_second_payments
            where status = 'returning' and rail = 'pix'
              and coalesce(asked_at, created_at) <= now() - make_interval(secs =>
                case when asked_again < ${policy.slowAfter}::int then ${policy.everySeconds}::float8
                     else ${policy.slowEverySeconds}::float8 end)
            order by coalesce(asked_at, created_at), id
            limit ${policy.limit}
            for update skip locked
          ), claimed as (
            update bolepix_second_payments s set asked_again = s.asked_again + 1, asked_at = now()
            from due where s.id = due.id
            returning s.id, s.account_id, s.transaction_id, s.reference, s.amount, s.asked_again
          )
          select c.id, c.account_id as "accountId", c.transaction_id as "transactionId",
            coalesce(t.details -> 'pix' ->> 'txid', r.txid, '') as txid, c.reference as "endToEndId",
            c.amount::text as amount, c.asked_again as "askedAgain"
          from claimed c
          join transactions t on t.id = c.transaction_id
          left join pix_received r on r.end_to_end_id = c.reference`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(Claimed))),
            Effect.orDie
          ),
        ofTransaction: (accountId, transactionId) =>
          sql`
          select id, transaction_id as "transactionId", rail, reference, amount::text as amount,
            paid_at as "paidAt", status
          from bolepix_second_payments
          where account_id = ${accountId} and transaction_id = ${transactionId}
          order by created_at, id`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Row))), Effect.orDie)
      })
    )
  })
)
