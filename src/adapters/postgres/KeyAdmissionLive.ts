import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { AccountId } from "../../domain/ids.ts"
import { Mode } from "../../domain/mode.ts"
import { KeyAdmission } from "../../ports/Admission.ts"
import { claimOutcome } from "./claimOutcome.ts"
import { ClaimOwner, ClaimOwnerLive } from "./ClaimOwner.ts"
import { traced } from "./traced.ts"

const Row = Schema.Struct({
  keyId: Schema.String,
  accountId: AccountId,
  mode: Mode,
  scopes: Schema.NullOr(Schema.Array(Schema.String)),
  rateLimit: Schema.Number,
  granted: Schema.Boolean,
  allowed: Schema.Boolean,
  remaining: Schema.Number,
  resetMs: Schema.Number,
  claim: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  claimResourceId: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  claimStatus: Schema.optionalWith(Schema.NullOr(Schema.Number), { default: () => null }),
  claimBody: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

/**
 * One statement: api_key_admit (migration 0010), or api_key_admit_claim (0012, 0017) with a claim, and
 * the tenant's mode (0018) read beside it by its primary key.
 */
export const KeyAdmissionLive = Layer.effect(
  KeyAdmission,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const owner = yield* ClaimOwner
    return KeyAdmission.of(
      traced("KeyAdmission", {
        admit: (digest, neededScope, claim) =>
          (claim === undefined
            ? sql`select f.key_id, f.account_id, a.mode, f.scopes, f.rate_limit, f.granted, f.allowed, f.remaining,
                  f.reset_ms
                from api_key_admit(${Buffer.from(digest)}, ${neededScope}, interval '60 seconds') f
                join accounts a on a.id = f.account_id`
            : sql`select f.key_id, f.account_id, a.mode, f.scopes, f.rate_limit, f.granted, f.allowed, f.remaining,
                  f.reset_ms, f.claim, f.claim_resource_id, f.claim_status, f.claim_body
                from api_key_admit_claim(${Buffer.from(digest)}, ${neededScope}, interval '60 seconds',
                  ${claim.key}, ${claim.fingerprint}, ${claim.newResourceId}, ${owner.id}) f
                join accounts a on a.id = f.account_id`
          ).pipe(
            Effect.flatMap(decodeRows),
            Effect.orDie,
            Effect.map((rows) =>
              Option.map(Option.fromNullable(rows[0]), (row) => {
                const principal = {
                  accountId: row.accountId,
                  mode: row.mode,
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
                      },
                      claim:
                        row.claim === null
                          ? undefined
                          : claimOutcome({
                              outcome: row.claim,
                              resourceId: row.claimResourceId,
                              responseStatus: row.claimStatus,
                              responseBody: row.claimBody
                            })
                    }
                  : { _tag: "Forbidden" as const, principal }
              })
            )
          )
      })
    )
  })
).pipe(Layer.provide(ClaimOwnerLive))
