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
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const SecondPaymentRepoLive = Layer.effect(
  SecondPaymentRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return SecondPaymentRepo.of(
      traced("SecondPaymentRepo", {
        record: (accountId, p) =>
          sql`
          insert into bolepix_second_payments
            (id, account_id, transaction_id, rail, reference, amount, paid_at, status)
          values (${p.id}, ${accountId}, ${p.transactionId}, ${p.rail}, ${p.reference}, ${p.amount}, ${p.paidAt},
            ${p.status})
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
          sql`select ${sql.literal(columns)} from bolepix_second_payments where id::text = ${id} for update`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(OwnedRow))),
            Effect.orDie,
            Effect.map((rows) => Option.fromNullable(rows[0]))
          ),
        findReturning: (id) =>
          // The id is ours (a UUID); anything else a PSP reports is not one of them.
          UUID.test(id)
            ? sql`
          select account_id as "accountId", transaction_id as "transactionId", amount::text as amount
          from bolepix_second_payments where id = ${id} and status = 'returning'`.pipe(
                Effect.flatMap(Schema.decodeUnknown(Schema.Array(Returning))),
                Effect.map((rows) => Option.fromNullable(rows[0])),
                Effect.orDie
              )
            : Effect.succeed(Option.none()),
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
