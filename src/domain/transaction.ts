import { ChargeTerms } from "./chargeTerms.ts"
import { Schema } from "effect"
import { AntifraudAnalysis } from "./antifraud.ts"
import { CustomerId, OrderId, TransactionId } from "./ids.ts"

/** The core's words: a superset of both interfaces' words (CONTRACT §9). */
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
  updatedAt: Schema.Date,
  /** Present (true) on a record of live mode (issue 24 §1); absent on test mode's (src/http/shared/livemode.ts). */
  livemode: Schema.optional(Schema.Literal(true))
}) {}

/** The interface a transaction was created through; its events speak that interface's words. */
export const Origin = Schema.Literal("v2", "v1")
export type Origin = typeof Origin.Type

/** What the method leaves on a transaction (the jsonb `details` column). */
export const PixDetails = Schema.Struct({
  emv: Schema.String,
  txid: Schema.String,
  /**
   * A bolepix's due-date charge: the DICT key it is paid to, as the PSP issued it; a bank registers it with
   * the txid beside the slip (CNAB 240 segment Y-03, docs/providers.md "Boleto: banks by CNAB 240").
   */
  key: Schema.optional(Schema.String),
  expiresAt: Schema.String,
  qrToken: Schema.String
})
export type PixDetails = typeof PixDetails.Type
export const BoletoDetails = Schema.Struct({
  barcode: Schema.String,
  digitableLine: Schema.String,
  dueDate: Schema.String,
  pdfToken: Schema.String,
  bankCode: Schema.String,
  bankName: Schema.String,
  ourNumber: Schema.String,
  payerName: Schema.String,
  payerDocument: Schema.String,
  /** Fine, interest, discounts and abatement (docs/boleto.md); absent on boletos without them. */
  terms: Schema.optional(ChargeTerms)
})
export type BoletoDetails = typeof BoletoDetails.Type
export const CardDetails = Schema.Struct({
  brand: Schema.String,
  last4: Schema.String,
  holderName: Schema.String,
  authorizationCode: Schema.optional(Schema.String)
})
export type CardDetails = typeof CardDetails.Type
/** What the bank reported paid for a boleto, and its parts (docs/boleto.md); centavos. */
export const BoletoPayment = Schema.Struct({
  /** The day the buyer paid (São Paulo), the bank's data da ocorrência. */
  paidOn: Schema.String,
  amount: Schema.Number,
  principal: Schema.Number,
  abatement: Schema.Number,
  discount: Schema.Number,
  fine: Schema.Number,
  interest: Schema.Number,
  /** A bolepix's: the rail that paid first and settled it (docs/boleto.md "Bolepix"); absent on a plain boleto. */
  rail: Schema.optional(Schema.Literal("pix", "barcode"))
})
export type BoletoPayment = typeof BoletoPayment.Type

export const TransactionDetails = Schema.Struct({
  pix: Schema.optional(PixDetails),
  boleto: Schema.optional(BoletoDetails),
  /** A boleto's payment as the bank reported it (set when it is paid). */
  payment: Schema.optional(BoletoPayment),
  card: Schema.optional(CardDetails),
  /** The credential of the buyer's hosted checkout page (CONTRACT-v1 §6). */
  checkoutToken: Schema.optional(Schema.String),
  /**
   * A hosted card charge whose buyer chooses the plan: the most installments the form offers
   * (v1 `max_installments`, docs/checkout.md "Hosted card form"); absent when the merchant fixed it.
   */
  maxInstallments: Schema.optional(Schema.Number)
})
export type TransactionDetails = typeof TransactionDetails.Type

const Nullable = <S extends Schema.Schema.Any>(s: S) => Schema.NullOr(s)

/** The buyer a charge without an order named (v1), as stored. */
export const BuyerRecord = Schema.Struct({
  name: Schema.String,
  email: Schema.String,
  document: Schema.String,
  documentType: Schema.Literal("cpf", "cnpj"),
  phone: Nullable(Schema.String),
  ip: Nullable(Schema.String),
  zipCode: Nullable(Schema.String),
  streetName: Nullable(Schema.String),
  number: Nullable(Schema.String),
  complement: Nullable(Schema.String),
  neighborhood: Nullable(Schema.String),
  city: Nullable(Schema.String),
  state: Nullable(Schema.String),
  country: Nullable(Schema.String)
})

export const ProductRecord = Schema.Struct({
  name: Schema.String,
  quantity: Schema.Number,
  unitPrice: Schema.Number,
  sku: Nullable(Schema.String),
  link: Nullable(Schema.String)
})

/**
 * A split rule as the merchant sent it (CONTRACT-v1 §8), with the recipient's share of amount_total in
 * centavos fixed when the transaction was created.
 */
export const SplitRecord = Schema.Struct({
  subaccountId: Schema.String,
  amount: Schema.NullOr(Schema.Number),
  percentage: Schema.NullOr(Schema.Number),
  share: Schema.Number
})
export type SplitRecord = typeof SplitRecord.Type

/** The whole stored transaction, as the core works with it; repositories decode rows with this schema. */
export const TransactionRecord = Schema.Struct({
  id: TransactionId,
  origin: Origin,
  orderId: Schema.NullOr(OrderId),
  customerId: Schema.NullOr(CustomerId),
  method: PaymentMethod,
  amount: Schema.Number,
  /** What the buyer is charged: the amount plus installment interest. */
  amountTotal: Schema.Number,
  amountInterest: Schema.Number,
  buyer: Schema.NullOr(BuyerRecord),
  products: Schema.Array(ProductRecord),
  metadata: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  comment: Schema.NullOr(Schema.String),
  split: Schema.Array(SplitRecord),
  /** The gateway's fee on this sale, fixed at creation (CONTRACT-v1 §7). */
  fee: Schema.Number,
  status: TransactionStatus,
  refundedAmount: Schema.Number,
  /** Refunds under way (asked of the acquirer/PSP, not yet answered). */
  refundReserved: Schema.Number,
  installments: Schema.NullOr(Schema.Number),
  details: TransactionDetails,
  declineCode: Schema.NullOr(Schema.String),
  acquirerReference: Schema.NullOr(Schema.String),
  /** Which acquirer charged a card transaction when several are routed (docs/providers.md); null otherwise. */
  acquirer: Schema.NullOr(Schema.String),
  /** A card charge's vaulted card: the token charged, or the card held while a review decides. */
  cardToken: Schema.NullOr(Schema.String),
  /** A card charge's antifraud analysis (CONTRACT-v1 §9); null for PIX and boleto. */
  antifraud: Schema.NullOr(AntifraudAnalysis),
  paidAt: Schema.NullOr(Schema.DateFromSelf),
  expiresAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type TransactionRecord = typeof TransactionRecord.Type

/**
 * The part of a transaction that interface-v2 shows (its Transaction): what a list of every transaction
 * reads, without the jsonb and card columns that would cost most of the time and garbage per row.
 */
export const TransactionSummary = TransactionRecord.pipe(
  Schema.pick("id", "orderId", "method", "amountTotal", "status", "createdAt", "updatedAt")
)
export type TransactionSummary = typeof TransactionSummary.Type

export const toTransaction = (record: TransactionSummary, livemode: boolean) =>
  Transaction.make(
    {
      id: record.id,
      orderId: record.orderId,
      method: record.method,
      // What the buyer was charged, interest included (docs/api.md "Both interfaces, one transaction"), as the
      // payment result, the refund result and the webhooks say: `refundedAmount` equals it once fully refunded.
      amount: record.amountTotal,
      status: record.status,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      ...(livemode ? { livemode: true as const } : {})
    },
    { disableValidation: true }
  )

/**
 * What refunds can give back in all: what the buyer paid. amount_total, except for a boleto paid with its
 * charge terms, whose payment (principal + fine + interest − discount − abatement) is what the buyer paid
 * (docs/boleto.md "Refunds"); the refund's shares and fee returned are computed on it.
 */
export const refundBase = (t: { readonly amountTotal: number; readonly details: TransactionDetails }): number =>
  t.details.payment?.amount ?? t.amountTotal

/** Refund rules of interface-v2: only money actually received can go back. */
export const isRefundable = (status: TransactionStatus) =>
  status === "CAPTURED" || status === "PAID" || status === "PARTIAL_REFUND"

/**
 * A dispute (chargeback or MED) is open: no refund is accepted until it is won (docs/money.md
 * "Refunds and disputes"), and the money it holds is not the merchant's to give back.
 */
export const isDisputeOpen = (status: TransactionStatus) =>
  status === "PRE_CHARGEBACK" || status === "MED_RECEIVED" || status === "MED_ANALYSIS"

/**
 * Where a won dispute leaves a transaction: paid again, unless refunds went back before the dispute
 * opened or while it was open (a refund in flight stands: docs/money.md "Refunds and disputes").
 */
export const afterWonDispute = (amountTotal: number, refunded: number): TransactionStatus =>
  refunded <= 0 ? "PAID" : refunded >= amountTotal ? "REFUNDED" : "PARTIAL_REFUND"

/** The lifecycle trigger of a refund that brings the refunded total to `refunded` of `amountTotal`. */
export const refundTrigger = (amountTotal: number, refunded: number) =>
  refunded >= amountTotal ? ("refund_full" as const) : ("refund_partial" as const)

/** Whether a transaction is a bolepix: a boleto that also carries a PIX due-date charge (docs/boleto.md). */
export const isBolepix = (t: { readonly method: PaymentMethod; readonly details: TransactionDetails }): boolean =>
  t.method === "BOLETO" && t.details.pix !== undefined

type DueChargeState = {
  readonly method: PaymentMethod
  readonly status: TransactionStatus
  readonly details: TransactionDetails
}

/**
 * Whether a bolepix's due-date charge (`cobv`) is open at the PSP for nothing: the boleto left PENDING other
 * than by that charge's own PIX — settled by its barcode, expired, cancelled, rejected by the bank. A PIX on it
 * could then only be a second payment, to be returned, so the charge is withdrawn (docs/boleto.md "Bolepix").
 * Settled by its PIX, the charge is already concluded at the PSP.
 */
export const dueChargeOutlived = (t: DueChargeState): boolean =>
  isBolepix(t) && t.status !== "PENDING" && t.details.payment?.rail !== "pix"

/** Whether a move is the one that leaves a bolepix's due-date charge open for nothing (`dueChargeOutlived`). */
export const leavesDueChargeOpen = (before: DueChargeState, after: DueChargeState): boolean =>
  before.status === "PENDING" && dueChargeOutlived(after)
