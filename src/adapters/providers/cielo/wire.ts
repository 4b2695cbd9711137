import { Schema } from "effect"

/**
 * Cielo API 3.0's wire payloads (DeveloperCielo/API-3.0, docs.cielo.com.br): decoded here, at the
 * edge, and never passed beyond this folder. Fields we do not read are ignored, not rejected: Cielo
 * adds fields without notice.
 */

/** Payment.Status (Cielo's enum): 2 PaymentConfirmed is the only captured state a sale starts in. */
export const PaymentStatus = {
  NotFinished: 0,
  Authorized: 1,
  PaymentConfirmed: 2,
  Denied: 3,
  Voided: 10,
  Refunded: 11,
  Pending: 12,
  Aborted: 13,
  Scheduled: 20
} as const

export const SalePayment = Schema.Struct({
  PaymentId: Schema.String,
  Status: Schema.Number,
  Amount: Schema.Number,
  ReturnCode: Schema.optional(Schema.String),
  ReturnMessage: Schema.optional(Schema.String),
  AuthorizationCode: Schema.optional(Schema.String),
  Tid: Schema.optional(Schema.String),
  ProofOfSale: Schema.optional(Schema.String),
  CapturedAmount: Schema.optional(Schema.Number),
  VoidedAmount: Schema.optional(Schema.Number)
})

export const Sale = Schema.Struct({
  MerchantOrderId: Schema.String,
  Payment: SalePayment
})
export type Sale = typeof Sale.Type

/** `GET /1/sales?merchantOrderId=` (query host). Cielo's own spelling: `ReceveidDate`. */
export const SalesByOrder = Schema.Struct({
  Payments: Schema.Array(Schema.Struct({ PaymentId: Schema.String, ReceveidDate: Schema.optional(Schema.String) }))
})

/**
 * `PUT /1/sales/{PaymentId}/void?amount=`. The manual (DeveloperCielo/API-3.0 source/index.md) answers a
 * full void ("Cancelamento total") with `Status`, `ReturnCode`, `ReturnMessage` and `Links` only, and a
 * partial void ("Cancelamento parcial") with those plus `ReasonCode`, `ReasonMessage` and
 * `ProviderReturnCode`/`ProviderReturnMessage`; its captures ("Captura total"/"Captura parcial") are
 * shaped the same way. So `Status` and `ReturnCode` are the fields every answer carries, and `ReasonCode`
 * is optional: requiring it read Cielo's own full-void answer as unreadable.
 */
export const VoidResponse = Schema.Struct({
  Status: Schema.Number,
  ReturnCode: Schema.String,
  ReturnMessage: Schema.optional(Schema.String),
  ReasonCode: Schema.optional(Schema.Number),
  ReasonMessage: Schema.optional(Schema.String),
  ProviderReturnCode: Schema.optional(Schema.String),
  ProviderReturnMessage: Schema.optional(Schema.String)
})
export type VoidResponse = typeof VoidResponse.Type

/** `POST /1/zeroauth`. */
export const ZeroAuthResponse = Schema.Struct({
  Valid: Schema.Boolean,
  ReturnCode: Schema.String,
  ReturnMessage: Schema.optional(Schema.String)
})

/** Cielo's 4xx body: a list of codes and messages (they never echo card data). */
export const CieloErrors = Schema.Array(Schema.Struct({ Code: Schema.Number, Message: Schema.String }))

/** Our brand names → Cielo's. */
export const cieloBrand = { Visa: "Visa", Mastercard: "Master", Elo: "Elo" } as const
