import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { AccountId } from "../../domain/ids.ts"
import { Mode } from "../../domain/mode.ts"
import { type ClaimRequest, KeyAdmission } from "../../ports/Admission.ts"
import { batched } from "./batched.ts"
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
const decodeRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ ...Row.fields, i: Schema.Number })))

interface Call {
  readonly digest: string
  readonly neededScope: string
  readonly claim: ClaimRequest | undefined
}

type Found = Option.Option<typeof Row.Type>

/**
 * Admissions that arrive while one is on the wire go together in one statement (batched.ts; migration
 * 0037): one call of api_key_admit_any per request, each taking its own slot of its key's window. They are
 * sent in the order of their key and Idempotency-Key, so that two statements (two lanes, two processes)
 * take the keys' locks in the same order and never wait for each other in a cycle. The tenant's mode
 * (0018) is read beside each by its primary key.
 */
const admitAll = (sql: SqlClient.SqlClient, owner: number) => (calls: ReadonlyArray<Call>) => {
  const order = calls
    .map((call, i) => ({ call, i, by: `${call.digest} ${call.claim?.key ?? ""}` }))
    .sort((a, b) => (a.by < b.by ? -1 : a.by > b.by ? 1 : 0))
  return sql`
    select r.i, f.key_id, f.account_id, (select a.mode from accounts a where a.id = f.account_id) as mode,
           f.scopes, f.rate_limit, f.granted, f.allowed, f.remaining, f.reset_ms, f.claim, f.claim_resource_id,
           f.claim_status, f.claim_body
    from unnest(${order.map(({ call }) => call.digest)}::text[], ${order.map(({ call }) => call.neededScope)}::text[],
                ${order.map(({ call }) => call.claim?.key ?? null)}::text[],
                ${order.map(({ call }) => call.claim?.fingerprint ?? null)}::text[],
                ${order.map(({ call }) => call.claim?.newResourceId ?? null)}::uuid[],
                ${order.map(({ i }) => i)}::int[]) as r(digest, needed, claim_key, fingerprint, resource, i)
    left join lateral api_key_admit_any(decode(r.digest, 'hex'), r.needed, interval '60 seconds', r.claim_key,
                                        r.fingerprint, r.resource, ${owner}) f on true
    where f.key_id is not null`.pipe(
    Effect.flatMap(decodeRows),
    Effect.orDie,
    Effect.map((rows) => {
      const found: Array<Found> = calls.map(() => Option.none())
      // An unknown, revoked or rotated-away key has no row.
      for (const { i, ...row } of rows) found[i] = Option.some(row)
      return found
    })
  )
}

export const KeyAdmissionLive = Layer.scoped(
  KeyAdmission,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const owner = yield* ClaimOwner
    const admit = yield* batched(admitAll(sql, owner.id))
    return KeyAdmission.of(
      traced("KeyAdmission", {
        admit: (digest, neededScope, claim) =>
          admit({ digest: Buffer.from(digest).toString("hex"), neededScope, claim }).pipe(
            Effect.map((found) =>
              Option.map(found, (row) => {
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
