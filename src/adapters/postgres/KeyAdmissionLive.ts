import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { AccountId } from "../../domain/ids.ts"
import { Mode } from "../../domain/mode.ts"
import { KeyAdmission } from "../../ports/Admission.ts"
import { claimOutcome } from "./claimOutcome.ts"
import { ClaimOwner, ClaimOwnerLive } from "./ClaimOwner.ts"
import { keepReadAhead, type OrderToCharge, toCharge, TO_CHARGE_COLUMNS } from "./orderToCharge.ts"
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
/**
 * The order read ahead: `orderToCharge.ts`'s columns beside the admission's (none of whose names they
 * share), all null when the key's account has no such order.
 */
const orderAhead = (raw: unknown): Option.Option<OrderToCharge> =>
  (raw as { readonly id?: unknown }).id == null ? Option.none() : Option.some(toCharge(raw))

const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

/**
 * One statement: api_key_admit (migration 0010), or api_key_admit_claim (0012, 0017) with a claim, and
 * the tenant's mode (0018) read beside it by its primary key; with `order`, that order of the key's
 * account read after the function has admitted the request (the lateral join's condition), kept for
 * OrderRepoLive.findToCharge (orderToCharge.ts).
 */
export const KeyAdmissionLive = Layer.effect(
  KeyAdmission,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const owner = yield* ClaimOwner
    return KeyAdmission.of(
      traced("KeyAdmission", {
        admit: (digest, neededScope, claim, order) => {
          // Only for a request the key may make and has a slot for: a refused one reads nothing.
          const ahead =
            order === undefined
              ? sql``
              : sql`left join lateral (
                  select ${sql.literal(TO_CHARGE_COLUMNS)}
                  from orders o
                  left join customers c on c.account_id = o.account_id and c.id = o.customer_id
                  where o.account_id = f.account_id and o.id = ${order} and f.granted and f.allowed
                ) o on true`
          const orderColumns = order === undefined ? sql`` : sql`, o.*`
          return (
            claim === undefined
              ? sql`select f.key_id, f.account_id, a.mode, f.scopes, f.rate_limit, f.granted, f.allowed, f.remaining,
                  f.reset_ms ${orderColumns}
                from api_key_admit(${Buffer.from(digest)}, ${neededScope}, interval '60 seconds') f
                join accounts a on a.id = f.account_id ${ahead}`
              : sql`select f.key_id, f.account_id, a.mode, f.scopes, f.rate_limit, f.granted, f.allowed, f.remaining,
                  f.reset_ms, f.claim, f.claim_resource_id, f.claim_status, f.claim_body ${orderColumns}
                from api_key_admit_claim(${Buffer.from(digest)}, ${neededScope}, interval '60 seconds',
                  ${claim.key}, ${claim.fingerprint}, ${claim.newResourceId}, ${owner.id}) f
                join accounts a on a.id = f.account_id ${ahead}`
          ).pipe(
            Effect.flatMap((raw) => Effect.map(decodeRows(raw), (rows) => ({ raw: raw[0], rows }))),
            Effect.orDie,
            Effect.tap(({ raw, rows }) => {
              const row = rows[0]
              if (order === undefined || row === undefined || !(row.granted && row.allowed)) return Effect.void
              return keepReadAhead({ accountId: row.accountId, orderId: order, found: orderAhead(raw) })
            }),
            Effect.map(({ rows }) =>
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
        }
      })
    )
  })
).pipe(Layer.provide(ClaimOwnerLive))
