import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { OrderId } from "../../domain/ids.ts"
import type { Admission, ClaimRequest } from "../../ports/Admission.ts"
import { aheadIn, decodeAdmissionRows, toAdmission } from "./admissionRow.ts"
import { batchedByKey } from "./batched.ts"
import { toCharge, TO_CHARGE_COLUMNS } from "./orderToCharge.ts"
import type { ReadAhead } from "./readAhead.ts"

/** A request of the key with this digest needing this scope, with a claim to make, an order to pay or both. */
interface Asking {
  readonly digest: Uint8Array
  readonly neededScope: string
  readonly claim: ClaimRequest | undefined
  readonly order: OrderId | undefined
}

/** Its admission (with its claim when it asked for one and got its slot), and the order read for it to keep. */
interface Admitted {
  readonly admission: Option.Option<Admission>
  readonly ahead: Option.Option<ReadAhead>
}

/**
 * Claims in one order in every batch (migration 0043): by Idempotency-Key, requests without one last,
 * and ties in their order of arrival.
 */
const byClaimKey = (a: Asking, b: Asking) =>
  a.claim === undefined
    ? b.claim === undefined
      ? 0
      : 1
    : b.claim === undefined
      ? -1
      : a.claim.key < b.claim.key
        ? -1
        : a.claim.key > b.claim.key
          ? 1
          : 0

/**
 * The admissions of requests with an idempotency claim or an order to read (the charges: KeyAdmissionLive).
 * As admitTogether does for the rest, this process sends one statement per key and scope at a time, for
 * every such request of it that waits (docs/performance.md "Charges admitted together"):
 * `api_key_admit_claims` takes their slots as it would one by one and makes each accepted request's
 * claim, in the order of the batch sorted by Idempotency-Key; a request that got its slot and pays an
 * order reads it, in the key's account only (docs/performance.md "The order read with the admission").
 *
 * A request whose caller goes away while it waits may still get its slot and its claim; an acquired
 * claim is then given up at once (`forget`), as the request would give it up had it answered.
 */
export const admitClaiming = (
  sql: SqlClient.SqlClient,
  owner: number,
  forget: (admitted: Admitted, asking: Asking) => Effect.Effect<void>
) =>
  batchedByKey(
    (asking: Asking) => `${Buffer.from(asking.digest).toString("hex")} ${asking.neededScope}`,
    (arrived: ReadonlyArray<Asking>): Effect.Effect<ReadonlyArray<Admitted>> => {
      // Sorted for the statement, answered in the order of arrival.
      const order = arrived.map((_, i) => i).sort((i, j) => byClaimKey(arrived[i]!, arrived[j]!) || i - j)
      const askings = order.map((i) => arrived[i]!)
      const [first] = askings
      const keys = askings.map((a) => a.claim?.key ?? null)
      const fingerprints = askings.map((a) => a.claim?.fingerprint ?? null)
      const resources = askings.map((a) => a.claim?.newResourceId ?? null)
      const orders = askings.map((a) => a.order ?? null)
      const reads = askings.some((a) => a.order !== undefined)
      return sql`select f.key_id, f.account_id, a.mode, f.scopes, f.rate_limit, f.granted, f.allowed, f.remaining,
          f.reset_ms, f.claim, f.claim_resource_id, f.claim_status, f.claim_body ${reads ? sql`, o.*` : sql``}
        from api_key_admit_claims(${Buffer.from(first!.digest)}, ${first!.neededScope}, interval '60 seconds',
          ${keys}::text[], ${fingerprints}::text[], ${resources}::uuid[], ${owner}) f
        join accounts a on a.id = f.account_id
        ${
          reads
            ? sql`left join lateral (
                select ${sql.literal(TO_CHARGE_COLUMNS)}
                from orders o
                left join customers c on c.account_id = o.account_id and c.id = o.customer_id
                where o.account_id = f.account_id and o.id = (${orders}::uuid[])[f.turn] and f.granted and f.allowed
              ) o on true`
            : sql``
        }
        order by f.turn`.pipe(
        Effect.flatMap((raw) => Effect.map(decodeAdmissionRows(raw), (rows) => ({ raw, rows }))),
        Effect.orDie,
        Effect.map(({ raw, rows }) => {
          const answers: Array<Admitted> = []
          askings.forEach((asking, turn) => {
            // No rows for an unknown key: none for any of its requests.
            const row = rows[turn]
            answers[order[turn]!] = {
              admission: Option.map(Option.fromNullable(row), toAdmission),
              ahead:
                asking.order !== undefined && row !== undefined && row.granted && row.allowed
                  ? Option.some({
                      kind: "orderToCharge",
                      accountId: row.accountId,
                      id: asking.order,
                      found: aheadIn(raw[turn], toCharge)
                    })
                  : Option.none()
            }
          })
          return answers
        })
      )
    },
    forget
  )
