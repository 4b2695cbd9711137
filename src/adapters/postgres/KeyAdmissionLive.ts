import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { AccountId } from "../../domain/ids.ts"
import { Mode } from "../../domain/mode.ts"
import { type Admission, KeyAdmission } from "../../ports/Admission.ts"
import { batchedByKey } from "./batched.ts"
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
type Row = typeof Row.Type

/** What a row says of its request: refused its scope, or admitted with its slot's decision and its claim. */
const toAdmission = (row: Row): Admission => {
  const principal = {
    accountId: row.accountId,
    mode: row.mode,
    keyId: row.keyId,
    scopes: row.scopes,
    rateLimit: row.rateLimit
  }
  return row.granted
    ? {
        _tag: "Admitted",
        principal,
        decision: { allowed: row.allowed, limit: row.rateLimit, remaining: row.remaining, resetMs: row.resetMs },
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
    : { _tag: "Forbidden", principal }
}

/** A request of the key with this digest needing this scope, admitted with others of the same (`together`). */
interface Asking {
  readonly digest: Uint8Array
  readonly neededScope: string
}

/** The rows of one call in the order the function took the requests: accepted first, the last slot last. */
const inTurn = (a: Row, b: Row) => Number(b.allowed) - Number(a.allowed) || b.remaining - a.remaining

/**
 * One statement: api_key_admit (migration 0010), or api_key_admit_claim (0012, 0017) with a claim, and
 * the tenant's mode (0018) read beside it by its primary key; with `order`, that order of the key's
 * account read after the function has admitted the request (the lateral join's condition), kept for
 * OrderRepoLive.findToCharge (orderToCharge.ts). A request with neither waits for its key's statement
 * in flight, if there is one, and goes with the others that did in the next (`together`).
 */
export const KeyAdmissionLive = Layer.scoped(
  KeyAdmission,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const owner = yield* ClaimOwner
    // The rate limit serialises a key's admissions on its lock (migration 0040): this process sends one
    // statement per key and scope at a time, for every request of it that waits, which api_key_admit
    // answers as it would have one by one (0042; docs/performance.md "Admissions in batches").
    const together = yield* batchedByKey(
      (asking: Asking) => `${Buffer.from(asking.digest).toString("hex")} ${asking.neededScope}`,
      (askings: ReadonlyArray<Asking>) =>
        sql`select f.key_id, f.account_id, a.mode, f.scopes, f.rate_limit, f.granted, f.allowed, f.remaining,
            f.reset_ms
          from api_key_admit(${Buffer.from(askings[0]!.digest)}, ${askings[0]!.neededScope}, interval '60 seconds',
            ${askings.length}) f
          join accounts a on a.id = f.account_id`.pipe(
          Effect.flatMap(decodeRows),
          Effect.orDie,
          // No rows for an unknown key: none for any of its requests.
          Effect.map((rows) => {
            const ordered = [...rows].sort(inTurn)
            return askings.map((_, i) => Option.map(Option.fromNullable(ordered[i]), toAdmission))
          })
        )
    )
    return KeyAdmission.of(
      traced("KeyAdmission", {
        admit: (digest, neededScope, claim, order) => {
          if (claim === undefined && order === undefined) return together({ digest, neededScope })
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
            Effect.map(({ rows }) => Option.map(Option.fromNullable(rows[0]), toAdmission))
          )
        }
      })
    )
  })
).pipe(Layer.provide(ClaimOwnerLive))
