import { SqlClient } from "@effect/sql"
import { traced } from "./traced.ts"
import { Effect, Layer } from "effect"
import { RateLimiter } from "../../ports/RateLimiter.ts"

/** The window lives in PostgreSQL (function rate_limit_take) so every API process counts together. */
export const RateLimiterLive = Layer.effect(
  RateLimiter,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return RateLimiter.of(
      traced("RateLimiter", {
        take: (keyId, limit) =>
          sql<{ allowed: boolean; remaining: number; resetMs: number }>`
          select * from rate_limit_take(${keyId}, ${limit}, interval '60 seconds')`.pipe(
            Effect.orDie,
            Effect.map(([row]) => ({ allowed: row!.allowed, limit, remaining: row!.remaining, resetMs: row!.resetMs }))
          )
      })
    )
  })
)
