import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { RateLimitWindows } from "../../ports/RateLimitWindows.ts"
import { traced } from "./traced.ts"

/** Windows pruned per statement, each its own transaction: a request of one waits for at most this many deletes. */
const WINDOWS_PER_CALL = 100

const decodeRow = Schema.decodeUnknown(Schema.Tuple(Schema.Struct({ windows: Schema.Number, hits: Schema.Number })))

/**
 * `rate_limit_prune` (migrations 0044, 0046) until it finds fewer windows than it may take. The window is the 60
 * seconds every caller of `rate_limit_take` uses (KeyAdmissionLive, PaymentLinkRepoLive).
 */
export const RateLimitWindowsLive = Layer.effect(
  RateLimitWindows,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const once = sql`select windows, hits from rate_limit_prune(interval '60 seconds', ${WINDOWS_PER_CALL})`.pipe(
      Effect.flatMap(decodeRow),
      Effect.orDie,
      Effect.map(([row]) => row)
    )
    const from = (total: number): Effect.Effect<number> =>
      Effect.flatMap(once, ({ windows, hits }) =>
        windows < WINDOWS_PER_CALL ? Effect.succeed(total + hits) : from(total + hits)
      )
    return RateLimitWindows.of(traced("RateLimitWindows", { prune: () => from(0) }))
  })
)
