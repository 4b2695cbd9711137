import type { StoredEvent } from "../../domain/events.ts"
import type { PaymentMethod } from "../../domain/transaction.ts"

/** The spec says CREDIT_CARD where the API says CARD (CONTRACT §7). */
const eventMethod = (method: PaymentMethod) => (method === "CARD" ? "CREDIT_CARD" : method)

/**
 * The v2 envelope `{event, created_at, data}` (CONTRACT §8), built from the snapshot taken when the
 * event happened: a delivery days later still tells what was true then (receivers fetch the
 * transaction for what is true now).
 */
export const v2EventPayload = ({ createdAt, name, snapshot: t }: StoredEvent) => ({
  event: name,
  created_at: createdAt.toISOString(),
  data: {
    transactionId: t.id,
    orderId: t.orderId,
    // What the buyer was charged (payments/present.ts `paymentResult`).
    amount: t.amountTotal,
    method: eventMethod(t.method),
    status: t.status,
    ...(name === "transaction.paid" && t.paidAt !== null ? { paidAt: t.paidAt } : {}),
    ...(name === "transaction.refunded" || name === "transaction.partially_refunded"
      ? { refundedAmount: t.refundedAmount }
      : {})
  }
})
