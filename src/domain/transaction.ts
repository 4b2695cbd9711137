import { Schema } from "effect"

/** The core's words: a superset of /api (v2) and /public/v1 (CONTRACT §9). */
export const TransactionStatus = Schema.Literal(
  "PENDING",
  "PROCESSING",
  "ANTIFRAUD",
  "CAPTURED",
  "PAID",
  "DECLINED",
  "FAILED",
  "CANCELLED",
  "PARTIAL_REFUND",
  "REFUNDED",
  "PRE_CHARGEBACK",
  "CHARGEBACK",
  "MED_RECEIVED",
  "MED_ANALYSIS",
  "MED_REPROVED"
)
export type TransactionStatus = typeof TransactionStatus.Type

export const PaymentMethod = Schema.Literal("PIX", "BOLETO", "CARD")
export type PaymentMethod = typeof PaymentMethod.Type

/** The Transaction of interface-v2 ("as returned by the transaction endpoints"). */
export class Transaction extends Schema.Class<Transaction>("Transaction")({
  id: Schema.UUID,
  orderId: Schema.NullOr(Schema.UUID),
  method: PaymentMethod,
  amount: Schema.Int,
  status: TransactionStatus,
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {}
