import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { AntifraudSignals } from "../../ports/Antifraud.ts"
import { traced } from "./traced.ts"

const Count = Schema.Array(Schema.Struct({ count: Schema.Number }))
const Usual = Schema.Array(Schema.Struct({ count: Schema.Number, average: Schema.NullOr(Schema.NumberFromString) }))

/**
 * The counters live in PostgreSQL so that every API process counts together. The upsert takes the
 * row lock of its (account, kind, key, bucket): concurrent charges queue on it and each reads back its
 * own count. It runs on its own (not in the charge's transaction), so a count is never rolled back
 * and an attempt that is refused later still counts: velocity is about attempts.
 */
export const AntifraudSignalsLive = Layer.effect(
  AntifraudSignals,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return AntifraudSignals.of(
      traced("AntifraudSignals", {
        bump: (accountId, kind, key, window) =>
          sql`
            insert into antifraud_counters as c (account_id, kind, key, bucket, count, expires_at)
            values (${accountId}, ${kind}, ${key}, ${window.bucket}, 1, ${window.endsAt})
            on conflict (account_id, kind, key, bucket) do update set count = c.count + 1
            returning c.count`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Count)),
            Effect.orDie,
            Effect.map((rows) => rows[0]!.count)
          ),
        deleteExpired: (before) =>
          sql`delete from antifraud_counters where expires_at < ${before} returning 1`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.length)
          ),
        usualCardAmount: (accountId) =>
          sql`
            select count(*)::int as count, avg(amount)::text as average from (
              select amount from transactions
              where account_id = ${accountId} and method = 'CARD' and paid_at is not null
              order by created_at desc limit 100
            ) recent`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Usual)),
            Effect.orDie,
            Effect.map((rows) => ({ count: rows[0]?.count ?? 0, average: rows[0]?.average ?? 0 }))
          )
      })
    )
  })
)
