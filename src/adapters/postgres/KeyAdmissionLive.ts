import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { AccountId } from "../../domain/ids.ts"
import { KeyAdmission } from "../../ports/Admission.ts"
import { traced } from "./traced.ts"

const Row = Schema.Struct({
  keyId: Schema.String,
  accountId: AccountId,
  scopes: Schema.NullOr(Schema.Array(Schema.String)),
  rateLimit: Schema.Number,
  granted: Schema.Boolean,
  allowed: Schema.Boolean,
  remaining: Schema.Number,
  resetMs: Schema.Number
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

/** One statement: api_key_admit (migration 0010). */
export const KeyAdmissionLive = Layer.effect(
  KeyAdmission,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return KeyAdmission.of(
      traced("KeyAdmission", {
        admit: (digest, neededScope) =>
          sql`select key_id, account_id, scopes, rate_limit, granted, allowed, remaining, reset_ms
              from api_key_admit(${Buffer.from(digest)}, ${neededScope}, interval '60 seconds')`.pipe(
            Effect.flatMap(decodeRows),
            Effect.orDie,
            Effect.map((rows) =>
              Option.map(Option.fromNullable(rows[0]), (row) => {
                const principal = {
                  accountId: row.accountId,
                  keyId: row.keyId,
                  scopes: row.scopes,
                  rateLimit: row.rateLimit
                }
                return row.granted
                  ? {
                      _tag: "Admitted" as const,
                      principal,
                      decision: {
                        allowed: row.allowed,
                        limit: row.rateLimit,
                        remaining: row.remaining,
                        resetMs: row.resetMs
                      }
                    }
                  : { _tag: "Forbidden" as const, principal }
              })
            )
          )
      })
    )
  })
)
