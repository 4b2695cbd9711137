import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { AccountId, TransactionId } from "../../domain/ids.ts"
import { BoletoPaymentToReturnRepo } from "../../ports/BoletoPaymentToReturnRepo.ts"
import { isUuid } from "../../domain/uuid.ts"
import { traced } from "./traced.ts"

const Row = Schema.Struct({
  id: Schema.String,
  accountId: Schema.NullOr(AccountId),
  transactionId: Schema.NullOr(TransactionId),
  ourNumber: Schema.String,
  code: Schema.String,
  occurredOn: Schema.NullOr(Schema.String),
  amount: Schema.NumberFromString,
  fileNumber: Schema.Number,
  line: Schema.Number,
  reason: Schema.String,
  status: Schema.Literal("to_return", "returned"),
  createdAt: Schema.DateFromSelf,
  returnedAt: Schema.NullOr(Schema.DateFromSelf)
})
const decode = Schema.decodeUnknown(Schema.Array(Row))
const columns = `id, account_id as "accountId", transaction_id as "transactionId", our_number as "ourNumber", code,
  to_char(occurred_on, 'YYYY-MM-DD') as "occurredOn", amount::text as amount, file_number as "fileNumber", line,
  reason, status, created_at as "createdAt", returned_at as "returnedAt"`

export const BoletoPaymentToReturnRepoLive = Layer.effect(
  BoletoPaymentToReturnRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return BoletoPaymentToReturnRepo.of(
      traced("BoletoPaymentToReturnRepo", {
        record: (p) =>
          sql`
          insert into boleto_payments_to_return
            (id, account_id, transaction_id, our_number, code, occurred_on, amount, file_number, line, reason, status)
          values (${p.id}, ${p.accountId}, ${p.transactionId}, ${p.ourNumber}, ${p.code}, ${p.occurredOn}::date,
            ${p.amount}, ${p.fileNumber}, ${p.line}, ${p.reason}, 'to_return')
          on conflict (our_number, code, coalesce(occurred_on, '-infinity'::date)) do nothing
          returning id`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.length === 1)
          ),
        open: (limit) =>
          sql`
          select ${sql.literal(columns)} from boleto_payments_to_return where status = 'to_return'
          order by created_at, id limit ${limit}`.pipe(Effect.flatMap(decode), Effect.orDie),
        findForUpdate: (id) =>
          // By its primary key; anything that is not a UUID names none of them.
          isUuid(id)
            ? sql`select ${sql.literal(columns)} from boleto_payments_to_return where id = ${id} for update`.pipe(
                Effect.flatMap(decode),
                Effect.orDie,
                Effect.map((rows) => Option.fromNullable(rows[0]))
              )
            : Effect.succeed(Option.none()),
        setReturned: (id) =>
          sql`
          update boleto_payments_to_return set status = 'returned', returned_at = now()
          where id = ${id} and status = 'to_return'`.pipe(Effect.orDie, Effect.asVoid)
      })
    )
  })
)
