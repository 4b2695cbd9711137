import type { PostingRecord } from "../../ports/Ledger.ts"
import { isRefundable, type TransactionRecord } from "../../domain/transaction.ts"
import type { TransactionRow } from "../../ports/DashboardReads.ts"
import type { Customer } from "../../domain/customer.ts"
import type { TimelineEntry } from "../../app/Dashboard.ts"

/** A transaction in the dashboard's words (camelCase, as /api). */
export const presentTransaction = (
  t: TransactionRecord,
  buyer: { readonly name: string; readonly document: string } | null
) => ({
  id: t.id,
  method: t.method,
  status: t.status,
  amount: t.amount,
  amountTotal: t.amountTotal,
  refundedAmount: t.refundedAmount,
  refundable: isRefundable(t.status) ? Math.max(0, t.amountTotal - t.refundedAmount - t.refundReserved) : 0,
  fee: t.fee,
  installments: t.installments,
  buyer,
  card: t.details.card ? { brand: t.details.card.brand, last4: t.details.card.last4 } : null,
  metadata: t.metadata,
  declineCode: t.declineCode,
  antifraud: t.antifraud
    ? {
        decision: t.antifraud.decision,
        score: t.antifraud.score,
        reason: t.antifraud.reason,
        status: t.antifraud.status
      }
    : null,
  createdAt: t.createdAt,
  paidAt: t.paidAt
})

export const presentRow = (row: TransactionRow) => presentTransaction(row.transaction, row.buyer)

export const presentDetail = (view: {
  readonly transaction: TransactionRecord
  readonly customer: Customer | null
  readonly timeline: ReadonlyArray<TimelineEntry>
}) => {
  const t = view.transaction
  const buyer = t.buyer
    ? { name: t.buyer.name, document: t.buyer.document }
    : view.customer
      ? { name: view.customer.name, document: view.customer.document }
      : null
  return { transaction: presentTransaction(t, buyer), timeline: view.timeline }
}

/** CSV (RFC 4180, docs/dashboard.md "CSV"): a cell with a comma, quote or line break is quoted. */
const cell = (value: string | number | null) => {
  if (value === null) return ""
  const text = String(value)
  // A leading =, +, - or @ would be a formula in a spreadsheet (CSV injection): a quote mark neutralises it.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === "string" ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

export const csvLine = (cells: ReadonlyArray<string | number | null>) => cells.map(cell).join(",") + "\r\n"

export const TRANSACTIONS_CSV_HEADER = csvLine([
  "id",
  "created_at",
  "method",
  "status",
  "amount",
  "amount_total",
  "refunded_amount",
  "fee",
  "installments",
  "buyer_name",
  "buyer_document",
  "card_brand",
  "card_last4",
  "paid_at"
])

export const transactionCsv = (row: TransactionRow) => {
  const t = row.transaction
  return csvLine([
    t.id,
    t.createdAt.toISOString(),
    t.method,
    t.status,
    t.amount,
    t.amountTotal,
    t.refundedAmount,
    t.fee,
    t.installments,
    row.buyer?.name ?? null,
    row.buyer?.document ?? null,
    t.details.card?.brand ?? null,
    t.details.card?.last4 ?? null,
    t.paidAt?.toISOString() ?? null
  ])
}

export const FINANCIALS_CSV_HEADER = csvLine([
  "id",
  "created_at",
  "book",
  "type",
  "amount",
  "transaction_id",
  "withdrawal_id",
  "description"
])

export const postingCsv = (p: PostingRecord) =>
  csvLine([p.id, p.createdAt.toISOString(), p.book, p.type, p.amount, p.transactionId, p.withdrawalId, p.description])
