import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { KeyAdmission } from "../../ports/Admission.ts"
import { aheadIn, decodeAdmissionRows, decodeClaimRows, toAdmission } from "./admissionRow.ts"
import { admitTogether } from "./admitTogether.ts"
import { ClaimOwner, ClaimOwnerLive } from "./ClaimOwner.ts"
import { toCharge, TO_CHARGE_COLUMNS } from "./orderToCharge.ts"
import { keepReadAhead } from "./readAhead.ts"
import { traced } from "./traced.ts"

/**
 * One statement: api_key_admit (migration 0010), or api_key_admit_claim (0012, 0017) with a claim, and
 * the tenant's mode (0018) read beside it by its primary key; with `order`, that order of the key's
 * account read after the function has admitted the request (the lateral join's condition), kept for
 * OrderRepoLive.findToCharge (orderToCharge.ts). A request with neither goes with the others of its key
 * that arrive while one statement of it is in flight (admitTogether.ts), reading the record it names.
 */
export const KeyAdmissionLive = Layer.scoped(
  KeyAdmission,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const owner = yield* ClaimOwner
    const together = yield* admitTogether(sql)
    return KeyAdmission.of(
      traced("KeyAdmission", {
        admit: (digest, neededScope, claim, order, read) => {
          if (claim === undefined && order === undefined) {
            return Effect.flatMap(together({ digest, neededScope, read }), ({ admission, ahead }) =>
              Option.isSome(ahead) ? Effect.as(keepReadAhead(ahead.value), admission) : Effect.succeed(admission)
            )
          }
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
            Effect.orDie,
            Effect.map((raw) => ({
              raw: raw[0],
              rows: claim === undefined ? decodeAdmissionRows(raw) : decodeClaimRows(raw)
            })),
            Effect.tap(({ raw, rows }) => {
              const row = rows[0]
              if (order === undefined || row === undefined || !(row.granted && row.allowed)) return Effect.void
              return keepReadAhead({
                kind: "orderToCharge",
                accountId: row.accountId,
                id: order,
                found: aheadIn(raw, toCharge)
              })
            }),
            Effect.map(({ rows }) => Option.map(Option.fromNullable(rows[0]), toAdmission))
          )
        }
      })
    )
  })
).pipe(Layer.provide(ClaimOwnerLive))
