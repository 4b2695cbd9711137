import { Schema } from "effect"

/**
 * e.Rede v1's wire payloads (`/v1/transactions`), decoded at the edge and never passed beyond this
 * folder. Unknown fields are ignored.
 */

/** Every answer of e.Rede carries a return code and message, success or not. */
export const RedeAnswer = Schema.Struct({
  returnCode: Schema.String,
  returnMessage: Schema.optional(Schema.String),
  reference: Schema.optional(Schema.String),
  tid: Schema.optional(Schema.String),
  nsu: Schema.optional(Schema.String),
  authorizationCode: Schema.optional(Schema.String),
  refundId: Schema.optional(Schema.String)
})
export type RedeAnswer = typeof RedeAnswer.Type

/** `GET /v1/transactions?reference=`: the authorisation as e.Rede recorded it. */
export const RedeQuery = Schema.Struct({
  authorization: Schema.Struct({
    returnCode: Schema.String,
    returnMessage: Schema.optional(Schema.String),
    status: Schema.Literal("Approved", "Denied", "Canceled", "Pending"),
    tid: Schema.String,
    authorizationCode: Schema.optional(Schema.String),
    reference: Schema.String,
    amount: Schema.Number
  })
})

/** `GET /v1/transactions/{tid}`: the refunds made of it so far (what a lost refund answer is checked against). */
export const RedeTransaction = Schema.Struct({
  refunds: Schema.optionalWith(
    Schema.Array(Schema.Struct({ amount: Schema.Number, status: Schema.optional(Schema.String) })),
    { default: () => [] }
  )
})
