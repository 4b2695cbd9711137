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

/** What the method leaves on a transaction, shown by GET /api/payment-gateway/transaction/{id}. */
export interface PixDetails {
  readonly emv: string
  readonly txid: string
  readonly expiresAt: string
  readonly qrToken: string
}
export interface BoletoDetails {
  readonly barcode: string
  readonly digitableLine: string
  readonly dueDate: string
  readonly pdfToken: string
  readonly bankCode: string
  readonly bankName: string
  readonly ourNumber: string
  readonly payerName: string
  readonly payerDocument: string
}
export interface CardDetails {
  readonly brand: string
  readonly last4: string
  readonly holderName: string
  readonly authorizationCode?: string | undefined
}
export interface TransactionDetails {
  readonly pix?: PixDetails
  readonly boleto?: BoletoDetails
  readonly card?: CardDetails
}

/** The whole stored transaction, as the core works with it. */
export interface TransactionRecord {
  readonly id: string
  readonly orderId: string | null
  readonly customerId: string | null
  readonly method: PaymentMethod
  readonly amount: number
  readonly status: TransactionStatus
  readonly refundedAmount: number
  /** Refunds under way (asked of the acquirer/PSP, not yet answered). */
  readonly refundReserved: number
  readonly installments: number | null
  readonly details: TransactionDetails
  readonly declineCode: string | null
  readonly acquirerReference: string | null
  readonly paidAt: Date | null
  readonly expiresAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export const toTransaction = (record: TransactionRecord) =>
  Transaction.make(
    {
      id: record.id,
      orderId: record.orderId,
      method: record.method,
      amount: record.amount,
      status: record.status,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt
    },
    { disableValidation: true }
  )

/** Refund rules of interface-v2: only money actually received can go back. */
export const isRefundable = (status: TransactionStatus) =>
  status === "CAPTURED" || status === "PAID" || status === "PARTIAL_REFUND"

/** The status after `refunded` of `amount` centavos have been returned. */
export const statusAfterRefund = (amount: number, refunded: number): TransactionStatus =>
  refunded >= amount ? "REFUNDED" : "PARTIAL_REFUND"
