import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { TransactionId } from "../../domain/ids.ts"
import { Ids } from "../../ports/Ids.ts"
import { Receivables } from "../../ports/Receivables.ts"
import { traced } from "./traced.ts"

const ReceivableRow = Schema.Struct({
  id: Schema.String,
  transactionId: TransactionId,
  party: Schema.String,
  balance: Schema.Literal("pending", "reserved"),
  installment: Schema.Number,
  amount: Schema.Number,
  availableAt: Schema.DateFromSelf,
  settledAt: Schema.NullOr(Schema.DateFromSelf)
})
const decodeReceivables = Schema.decodeUnknown(Schema.Array(ReceivableRow))

const HoldRow = Schema.Struct({
  id: Schema.String,
  party: Schema.String,
  source: Schema.Literal("receivable", "available"),
  receivableId: Schema.NullOr(Schema.String),
  amount: Schema.Number
})
const decodeHolds = Schema.decodeUnknown(Schema.Array(HoldRow))

const COLUMNS = "id, transaction_id, party, balance, installment, amount, available_at, settled_at"

export const ReceivablesLive = Layer.effect(
  Receivables,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids
    const columns = sql.literal(COLUMNS)
    return Receivables.of(
      traced("Receivables", {
        insert: (accountId, transactionId, receivables) =>
          Effect.gen(function* () {
            if (receivables.length === 0) return []
            const rows = yield* Effect.forEach(receivables, (r) =>
              Effect.map(ids.next, (id) => ({
                id,
                party: r.party,
                balance: r.balance,
                installment: r.installment,
                amount: r.amount,
                available_at: r.availableAt.toISOString()
              }))
            )
            return yield* sql`
              insert into receivables (id, account_id, party, transaction_id, balance, installment, amount,
                                       available_at)
              select x.id, ${accountId}, x.party, ${transactionId}, x.balance, x.installment, x.amount,
                     x.available_at
              from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                as x(id uuid, party text, balance text, installment int, amount bigint, available_at timestamptz)
              returning ${columns}`.pipe(Effect.flatMap(decodeReceivables))
          }).pipe(Effect.orDie),
        openForUpdate: (accountId, transactionId) =>
          sql`
            select ${columns} from receivables
            where account_id = ${accountId} and transaction_id = ${transactionId} and settled_at is null
            order by available_at desc, id
            for update`.pipe(Effect.flatMap(decodeReceivables), Effect.orDie),
        findForUpdate: (accountId, id) =>
          sql`select ${columns} from receivables where account_id = ${accountId} and id = ${id} for update`.pipe(
            Effect.flatMap(decodeReceivables),
            Effect.map((rows) => Option.fromNullable(rows[0])),
            Effect.orDie
          ),
        setAmount: (accountId, id, amount) =>
          sql`update receivables set amount = ${amount} where account_id = ${accountId} and id = ${id}`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        markSettled: (accountId, id, at) =>
          sql`update receivables set settled_at = ${at} where account_id = ${accountId} and id = ${id}`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        oldestDue: (now) =>
          sql<{ availableAt: Date }>`
            select available_at from receivables
            where settled_at is null and available_at <= ${now}
            order by available_at limit 1`.pipe(
            Effect.map((rows) => Option.fromNullable(rows[0]?.availableAt)),
            Effect.orDie
          ),
        hold: (accountId, transactionId, tag, holds) =>
          Effect.gen(function* () {
            if (holds.length === 0) return
            const rows = yield* Effect.forEach(holds, (h) =>
              Effect.map(ids.next, (id) => ({
                id,
                party: h.party,
                source: h.source,
                receivable_id: h.receivableId,
                amount: h.amount
              }))
            )
            yield* sql`
              insert into ledger_holds (id, account_id, transaction_id, tag, party, source, receivable_id, amount)
              select x.id, ${accountId}, ${transactionId}, ${tag}, x.party, x.source, x.receivable_id, x.amount
              from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                as x(id uuid, party text, source text, receivable_id uuid, amount bigint)`
          }).pipe(Effect.orDie),
        release: (accountId, transactionId, tag) =>
          sql`
            update ledger_holds set released_at = now()
            where account_id = ${accountId} and transaction_id = ${transactionId} and tag = ${tag}
              and released_at is null
            returning id, party, source, receivable_id, amount`.pipe(Effect.flatMap(decodeHolds), Effect.orDie),
        openTag: (accountId, transactionId, prefix) =>
          sql<{ tag: string }>`
            select tag from ledger_holds
            where account_id = ${accountId} and transaction_id = ${transactionId}
              and starts_with(tag, ${prefix}) and released_at is null
            limit 1`.pipe(
            Effect.map((r) => Option.fromNullable(r[0]?.tag)),
            Effect.orDie
          ),
        countTags: (accountId, transactionId, prefix) =>
          sql<{ n: number }>`
            select count(distinct tag)::int as n from ledger_holds
            where account_id = ${accountId} and transaction_id = ${transactionId}
              and starts_with(tag, ${prefix})`.pipe(
            Effect.map((r) => r[0]?.n ?? 0),
            Effect.orDie
          )
      })
    )
  })
)
