import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { TransactionId } from "../../domain/ids.ts"
import { type PendingCardCharge, UndecidedChargeReads } from "../../ports/UndecidedCharges.ts"
import { traced } from "./traced.ts"
import { UNDECIDED_REFUND_AGE } from "./undecidedRefund.ts"

/**
 * How long a card charge stays PROCESSING, worked on by no request (`updated_at`, which the request sending it
 * marks while its acquirers are asked and a retry resuming it marks too), before it is an operator's to conclude
 * (docs/operations.md `card_charge_unknown`): counted in the operator queue, listed by `charges pending`,
 * concludable by `charges conclude`. The undecided card refunds' five minutes: far longer than any request
 * waits for its acquirers, so none is still sending it, and `reconcile_charges` (every minute, from
 * RECONCILE_STUCK_AFTER_SECONDS, 60 s by default) has asked the acquirer several times and not learnt the
 * outcome. It keeps asking: whichever concludes first wins, the other finds the charge concluded.
 */
export const UNDECIDED_CHARGE_AGE = UNDECIDED_REFUND_AGE

type Row = Omit<PendingCardCharge, "amount"> & { readonly amount: string | number }
const pendingOf = (row: Row): PendingCardCharge => ({ ...row, amount: Number(row.amount) })

/** Reads on the partial index transactions_processing (updated_at, where status = 'PROCESSING'). */
export const UndecidedChargeReadsLive = Layer.effect(
  UndecidedChargeReads,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const select = sql`
      select account_id as "accountId", id, order_id as "orderId", amount_total as amount, installments, acquirer,
        acquirer_reference as "acquirerReference", created_at as "createdAt", updated_at as "processingSince"
      from transactions
      where status = 'PROCESSING' and method = 'CARD' and updated_at < now() - ${sql.literal(UNDECIDED_CHARGE_AGE)}`
    return UndecidedChargeReads.of(
      traced("UndecidedChargeReads", {
        pending: (limit: number) =>
          sql<Row>`${select} order by updated_at limit ${limit}`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.map(pendingOf))
          ),
        findPending: (id: TransactionId) =>
          sql<Row>`${select} and id = ${id}`.pipe(
            Effect.orDie,
            Effect.map((rows) => (rows[0] === undefined ? undefined : pendingOf(rows[0])))
          )
      })
    )
  })
)
