import type { PaymentMethod, TransactionStatus } from "./transaction.ts"

/** Webhook events of CONTRACT §8 (v2 names). */
export const EVENT_TYPES = [
  "transaction.created",
  "transaction.paid",
  "transaction.declined",
  "transaction.failed",
  "transaction.refunded",
  "transaction.partially_refunded",
  "transaction.chargeback"
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export interface TransactionSnapshot {
  readonly id: string
  readonly orderId: string | null
  readonly method: PaymentMethod
  readonly amount: number
  readonly status: TransactionStatus
  readonly paidAt: Date | null
  readonly refundedAmount: number
}

/** The spec says CREDIT_CARD where the API says CARD (CONTRACT §7). */
const eventMethod = (method: PaymentMethod) => (method === "CARD" ? "CREDIT_CARD" : method)

/**
 * The v2 envelope `{event, created_at, data}`, frozen when the event happens: a delivery days later
 * still tells what was true then (receivers fetch the transaction for what is true now).
 */
export const v2EventPayload = (type: EventType, transaction: TransactionSnapshot, createdAt: Date) => ({
  event: type,
  created_at: createdAt.toISOString(),
  data: {
    transactionId: transaction.id,
    orderId: transaction.orderId,
    amount: transaction.amount,
    method: eventMethod(transaction.method),
    status: transaction.status,
    ...(type === "transaction.paid" && transaction.paidAt ? { paidAt: transaction.paidAt.toISOString() } : {}),
    ...(type === "transaction.refunded" || type === "transaction.partially_refunded"
      ? { refundedAmount: transaction.refundedAmount }
      : {})
  }
})
