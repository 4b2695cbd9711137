import { SqlClient } from "@effect/sql"
import { Chunk, Effect, Layer, Queue, Schedule, Schema } from "effect"
import { AccountId } from "../../domain/ids.ts"
import { RequestLog, type RequestEntry } from "../../ports/RequestLog.ts"
import { KEYSET_AT, seekAfter } from "./keyset.ts"
import { traced } from "./traced.ts"

/** How often queued entries are written, and at most how many per statement. */
const FLUSH_EVERY_MS = 200
const MAX_ROWS = 1_000
/** Entries waiting at most; past it new ones are dropped (a database outage must not fill the memory). */
const MAX_QUEUED = 20_000

const Row = Schema.Struct({
  id: Schema.String,
  accountId: AccountId,
  keyId: Schema.NullOr(Schema.String),
  method: Schema.String,
  path: Schema.String,
  status: Schema.Number,
  latencyMs: Schema.Number,
  requestId: Schema.String,
  idempotencyKey: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  keysetAt: Schema.String
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

/**
 * A body that is not JSON is kept as its text, and a merchant's text is untrusted: a NUL, the one code point
 * PostgreSQL's text cannot hold, becomes U+FFFD, or the statement, and every account's lines in it, would be
 * refused. (Node refuses a NUL in the request line and headers.)
 */
const storable = (body: string | null) => (body === null ? null : body.replaceAll("\u0000", "\uFFFD"))

/**
 * The request log written off the request path (issue 20 §2): `record` only queues, and one fiber writes
 * what is queued every FLUSH_EVERY_MS in one `insert … select from unnest(…)`, so a charge pays no round
 * trip for its log line (docs/performance.md). Entries queued when the process stops are written on the
 * way out; a crash loses at most the last FLUSH_EVERY_MS of them (the log is for reading, not for money).
 */
export const RequestLogLive = Layer.scoped(
  RequestLog,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* Queue.dropping<RequestEntry>(MAX_QUEUED)
    const write = (entries: ReadonlyArray<RequestEntry>) =>
      sql`
        insert into request_log (account_id, key_id, method, path, status, latency_ms, request_id, idempotency_key,
                                 body, created_at)
        select * from unnest(${entries.map((e) => e.accountId)}::uuid[], ${entries.map((e) => e.keyId)}::uuid[],
                             ${entries.map((e) => e.method)}::text[], ${entries.map((e) => e.path)}::text[],
                             ${entries.map((e) => e.status)}::int[], ${entries.map((e) => e.latencyMs)}::int[],
                             ${entries.map((e) => e.requestId)}::text[],
                             ${entries.map((e) => e.idempotencyKey)}::text[],
                             ${entries.map((e) => storable(e.body))}::text[],
                             ${entries.map((e) => e.at.toISOString())}::timestamptz[])`.pipe(
        Effect.asVoid,
        // An account deleted meanwhile, or the database away: the lines are lost, the service is not.
        Effect.catchAllCause((cause) => Effect.logWarning("request log: a batch was not written", cause))
      )
    const flush = Effect.gen(function* () {
      for (;;) {
        const entries = yield* Queue.takeUpTo(queue, MAX_ROWS)
        if (Chunk.isEmpty(entries)) return
        yield* write(Chunk.toReadonlyArray(entries))
      }
    })
    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(`${FLUSH_EVERY_MS} millis`)))
    yield* Effect.addFinalizer(() => flush)
    return RequestLog.of(
      traced("RequestLog", {
        record: (entry: RequestEntry) => Effect.asVoid(Queue.offer(queue, entry)),
        flush,
        list: (accountId, filter, limit, after) =>
          sql`
            select id::text, account_id, key_id, method, path, status, latency_ms, request_id, idempotency_key, body,
                   created_at, ${sql.literal(KEYSET_AT)}
            from request_log
            where account_id = ${accountId}
              ${filter.keyId === undefined ? sql`` : sql`and key_id = ${filter.keyId}`}
              ${seekAfter(sql, after, "desc", "bigint")}
            -- Qualified: a bare \`id\` here is the output column, id::text, which sorts ties as text ("99999999"
            -- before "100000001") while the seek compares the bigint, and a cursor then skipped rows.
            order by request_log.created_at desc, request_log.id desc limit ${limit}`.pipe(
            Effect.flatMap(decodeRows),
            Effect.orDie,
            Effect.map((rows) => {
              const last = rows.length === limit ? rows[rows.length - 1] : undefined
              return {
                rows: rows.map((row) => ({
                  id: row.id,
                  accountId: row.accountId,
                  keyId: row.keyId ?? "",
                  method: row.method,
                  path: row.path,
                  status: row.status,
                  latencyMs: row.latencyMs,
                  requestId: row.requestId,
                  idempotencyKey: row.idempotencyKey,
                  body: row.body,
                  at: row.createdAt
                })),
                next: last === undefined ? null : { at: last.keysetAt, id: last.id }
              }
            })
          ),
        deleteOlderThan: (days) =>
          sql<{ count: number }>`
            with gone as (delete from request_log where created_at < now() - make_interval(days => ${days})
                          returning 1)
            select count(*)::int as count from gone`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows[0]?.count ?? 0)
          )
      })
    )
  })
)
