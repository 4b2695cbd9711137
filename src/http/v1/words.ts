import type { PaymentMethod, TransactionStatus } from "../../domain/transaction.ts"

/** The core's statuses in v1's words (CONTRACT-v1 §2). */
export const V1_STATUS: Readonly<Record<TransactionStatus, string>> = {
  PENDING: "pending",
  PROCESSING: "processing",
  ANTIFRAUD: "antifraud",
  CAPTURED: "paid",
  PAID: "paid",
  DECLINED: "refused",
  FAILED: "failed",
  CANCELLED: "cancelled",
  PARTIAL_REFUND: "refunded",
  REFUNDED: "refunded",
  PRE_CHARGEBACK: "pre_chargeback",
  CHARGEBACK: "chargeback",
  MED_RECEIVED: "med_received",
  MED_ANALYSIS: "med_analysis",
  MED_REPROVED: "med_reproved"
}

export const V1_STATUSES = [...new Set(Object.values(V1_STATUS))]

/** The core statuses a v1 status word stands for (list filters). */
export const coreStatuses = (word: string): ReadonlyArray<TransactionStatus> =>
  (Object.keys(V1_STATUS) as Array<TransactionStatus>).filter((s) => V1_STATUS[s] === word)

export const V1_METHOD: Readonly<Record<PaymentMethod, "credit_card" | "pix" | "billet">> = {
  CARD: "credit_card",
  PIX: "pix",
  BOLETO: "billet"
}

export const CORE_METHOD = { credit_card: "CARD", pix: "PIX", billet: "BOLETO" } as const

const REFUSAL_REASONS = new Set([
  "card_declined",
  "insufficient_funds",
  "expired_card",
  "incorrect_cvc",
  "fraud_suspected",
  "processing_error"
])

/** `refusal_reason` for refused and failed transactions: a decline code of CONTRACT-v1 §2, else null. */
export const refusalReason = (status: TransactionStatus, declineCode: string | null) =>
  (status === "DECLINED" || status === "FAILED") && declineCode !== null && REFUSAL_REASONS.has(declineCode)
    ? declineCode
    : null
