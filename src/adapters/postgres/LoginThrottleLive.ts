import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { LoginThrottle } from "../../ports/LoginThrottle.ts"
import { traced } from "./traced.ts"

const decodeTake = Schema.decodeUnknown(
  Schema.Tuple(Schema.Struct({ allowed: Schema.Boolean, retryAfterSeconds: Schema.Number }))
)

/**
 * `login_attempt_take` and `login_attempts_clear` (migration 0050): one statement each. The take runs on
 * its own, never inside another transaction, as its commit does not wait for the disk.
 */
export const LoginThrottleLive = Layer.effect(
  LoginThrottle,
  Effect.map(SqlClient.SqlClient, (sql) =>
    LoginThrottle.of(
      traced("LoginThrottle", {
        take: (email, max, windowSeconds) =>
          sql`select allowed, retry_after_seconds from login_attempt_take(${email}, ${max}, ${windowSeconds})`.pipe(
            Effect.flatMap(decodeTake),
            Effect.orDie,
            Effect.map(([row]) => row)
          ),
        clear: (email) => sql`select login_attempts_clear(${email})`.pipe(Effect.asVoid, Effect.orDie)
      })
    )
  )
)
