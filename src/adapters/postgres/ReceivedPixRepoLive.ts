import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import type { AccountId, TransactionId } from "../../domain/ids.ts"
import {
  ReceivedPixRepo,
  type MarkHandled,
  type ReceivedPixMark,
  type ReceivedPixRecord,
  type Reopen
} from "../../ports/ReceivedPixRepo.ts"
import { traced } from "./traced.ts"

interface Row {
  readonly endToEndId: string
  readonly txid: string | null
  readonly amount: string | number
  readonly paidAt: Date
  readonly source: ReceivedPixRecord["source"]
  readonly outcome: ReceivedPixRecord["outcome"]
  readonly accountId: string | null
  readonly transactionId: string | null
  readonly receivedAt: Date
  readonly handledAt: Date | null
  readonly handledNote: string | null
}

const recordOf = (r: Row): ReceivedPixRecord => ({
  ...r,
  amount: Number(r.amount),
  accountId: r.accountId as AccountId | null,
  transactionId: r.transactionId as TransactionId | null
})

const columns = `end_to_end_id as "endToEndId", txid, amount, paid_at as "paidAt", source, outcome,
  account_id as "accountId", transaction_id as "transactionId", received_at as "receivedAt",
  handled_at as "handledAt", handled_note as "handledNote"`

/**
 * A PIX exception that waits for an operator: the predicate of the partial index `pix_received_exceptions`
 * (migration 0043), which the CLI's list and the operator queue's count both read.
 */
export const WAITING = `outcome <> 'settled' and outcome <> 'returned' and handled_at is null`

export const ReceivedPixRepoLive = Layer.effect(
  ReceivedPixRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** `decide` on the payment's row, locked until its transaction ends (an operator's mark or its undoing). */
    const underLock = <A>(
      endToEndId: string,
      decide: (record: ReceivedPixRecord) => Effect.Effect<A, SqlError.SqlError>
    ): Effect.Effect<A | { readonly _tag: "Unknown" }> =>
      sql
        .withTransaction(
          Effect.flatMap(
            sql<Row>`
              select ${sql.literal(columns)} from pix_received where end_to_end_id = ${endToEndId} for update`,
            ([row]): Effect.Effect<A | { readonly _tag: "Unknown" }, SqlError.SqlError> =>
              row === undefined ? Effect.succeed({ _tag: "Unknown" } as const) : decide(recordOf(row))
          )
        )
        .pipe(Effect.orDie)
    /**
     * Sets the operator's mark, or clears it, and keeps the mark or its undoing in `pix_received_marks`
     * (migration 0045) in the same statement; the row as it then is.
     */
    const setMark = (endToEndId: string, action: ReceivedPixMark["action"], note: string) =>
      Effect.map(
        sql<Row>`
          with kept as (
            insert into pix_received_marks (end_to_end_id, action, note) values (${endToEndId}, ${action}, ${note})
          )
          update pix_received set handled_at = case when ${action} = 'handled' then now() end,
            handled_note = case when ${action} = 'handled' then ${note} end
          where end_to_end_id = ${endToEndId}
          returning ${sql.literal(columns)}`,
        ([row]) => recordOf(row!)
      )
    return ReceivedPixRepo.of(
      traced("ReceivedPixRepo", {
        // Recorded first as an exception of unknown charge; the caller sets the real outcome in the same
        // database transaction, so nothing half-done is ever visible.
        claim: (p, source) =>
          sql`
          insert into pix_received (end_to_end_id, txid, amount, paid_at, source, outcome)
          values (${p.endToEndId}, ${p.txid}, ${p.amount}, ${p.paidAt}, ${source}, 'unknown_charge')
          on conflict (end_to_end_id) do nothing
          returning end_to_end_id`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.length === 1)
          ),
        setOutcome: (endToEndId, outcome, charge) =>
          sql`
          update pix_received set outcome = ${outcome}, account_id = ${charge?.accountId ?? null},
            transaction_id = ${charge?.transactionId ?? null}
          where end_to_end_id = ${endToEndId}`.pipe(Effect.orDie, Effect.asVoid),
        // Only a charge of the reporting PSP's mode: a live payment naming a test charge's txid (anyone can
        // put any txid in a static BR Code for the live key) pays nothing and waits for an operator.
        chargeOf: (txid, mode) =>
          sql<{ accountId: AccountId; transactionId: TransactionId }>`
          (select t.account_id as "accountId", t.id as "transactionId" from transactions t
           join accounts a on a.id = t.account_id and a.mode = ${mode}
           where t.method = 'PIX' and (t.details -> 'pix' ->> 'txid') = ${txid})
          union all
          -- A bolepix's due-date charge (docs/boleto.md "Bolepix"): its txid sits where a PIX's does.
          (select t.account_id, t.id from transactions t
           join accounts a on a.id = t.account_id and a.mode = ${mode}
           where t.method = 'BOLETO' and (t.details -> 'pix' ->> 'txid') = ${txid})
          limit 1`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.fromNullable(rows[0]))
          ),
        exceptions: (limit) =>
          sql<Row>`
          select ${sql.literal(columns)} from pix_received where ${sql.literal(WAITING)}
          order by received_at limit ${limit}`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.map(recordOf))
          ),
        // The row locked first: of two operators marking it at once, the second waits, then reads the first's
        // mark (a locking read returns the row as the first committed it) and changes nothing.
        markHandled: (endToEndId, note) =>
          underLock<MarkHandled>(endToEndId, (record) =>
            Effect.gen(function* () {
              if (record.outcome === "settled" || record.outcome === "returned") {
                return { _tag: "NotAnException", record } as const
              }
              if (record.handledAt !== null) return { _tag: "AlreadyHandled", record } as const
              const marked = yield* setMark(endToEndId, "handled", note)
              return { _tag: "Marked", record: marked } as const
            })
          ),
        // Locked as a mark locks it: a reopen and a mark of the same row take turns.
        reopen: (endToEndId, why) =>
          underLock<Reopen>(endToEndId, (record) =>
            Effect.gen(function* () {
              if (record.handledAt === null || record.handledNote === null) {
                return { _tag: "NotHandled", record } as const
              }
              const reopened = yield* setMark(endToEndId, "reopened", why)
              return {
                _tag: "Reopened",
                record: reopened,
                mark: { handledAt: record.handledAt, handledNote: record.handledNote }
              } as const
            })
          ),
        marks: (endToEndId) =>
          sql<ReceivedPixMark>`
          select action, note, at from pix_received_marks where end_to_end_id = ${endToEndId} order by id`.pipe(
            Effect.orDie
          ),
        find: (endToEndId) =>
          sql<Row>`select ${sql.literal(columns)} from pix_received where end_to_end_id = ${endToEndId}`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), recordOf))
          ),
        // One at most: a payment settles a charge only while it is PENDING, under its row lock (PixReceipts).
        settlingPayment: (accountId, transactionId) =>
          sql<Row>`
          select ${sql.literal(columns)} from pix_received
          where transaction_id = ${transactionId} and account_id = ${accountId} and outcome = 'settled'
          order by received_at limit 1`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), recordOf))
          )
      })
    )
  })
)
