import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Amount, Birthdate, BuyerDocument, Cep, Cpf, MobilePhone, Name, Uf, Uuid } from "../../domain/fields.ts"
import { PaymentMethod, TransactionStatus } from "../../domain/transaction.ts"
import { BadRequest, Conflict, NotFound, UnprocessableEntity } from "../errors.ts"
import { payload } from "../payload.ts"
import { paymentResultExamples, processExamples, refundExamples, tokenizeExamples } from "./examples.ts"
import { ApiKeyAuth } from "../security.ts"

const Address = Schema.Struct({
  postal_code: Cep,
  street: Name,
  number: Name,
  neighborhood: Name,
  city: Name,
  state: Uf
})

const CardBrand = Schema.Literal("Visa", "Mastercard", "Elo")

// Card fields are plain strings here: their rules apply only when no cardToken is given, so the
// domain checks them (Luhn, brand, expiry) knowing the method and the token.
export const ProcessPayment = payload(Schema.Struct({
  orderId: Uuid,
  method: PaymentMethod,
  amount: Amount,
  buyerDoc: Schema.optional(BuyerDocument),
  buyerCellNumber: MobilePhone,
  buyerAddress: Address,
  installments: Schema.optional(Schema.Number),
  cardHolderName: Schema.optional(Schema.String),
  cardNumber: Schema.optional(Schema.String),
  cardExpirationMonth: Schema.optional(Schema.String),
  cardExpirationYear: Schema.optional(Schema.String),
  cardSecurityCode: Schema.optional(Schema.String),
  cardBrand: Schema.optional(CardBrand),
  cardToken: Schema.optional(Schema.String),
  buyerBirthdate: Schema.optional(Birthdate)
}).annotations({ examples: processExamples }))

export const PaymentResult = Schema.Struct({
  transactionId: Schema.UUID,
  status: TransactionStatus,
  method: PaymentMethod,
  amount: Schema.Int,
  installments: Schema.optional(Schema.Int),
  pix: Schema.optional(Schema.Struct({ emv: Schema.String, qrCodeUrl: Schema.String, expiresAt: Schema.String })),
  boleto: Schema.optional(Schema.Struct({ barcode: Schema.String, digitableLine: Schema.String, pdfUrl: Schema.String, dueDate: Schema.String })),
  card: Schema.optional(Schema.Struct({ brand: Schema.String, last4: Schema.String }))
}).annotations({ examples: paymentResultExamples })

export const TokenizeCard = payload(Schema.Struct({
  customerId: Uuid,
  doc: Cpf,
  holderName: Name,
  cardNumber: Schema.String,
  brand: CardBrand,
  expirationMonth: Schema.String,
  expirationYear: Schema.String,
  securityCode: Schema.String,
  birthdate: Birthdate,
  cellNumber: MobilePhone,
  address: Address
}).annotations({ examples: tokenizeExamples }))

export const RefundPayment = payload(Schema.Struct({
  transactionId: Uuid,
  amount: Schema.optional(Amount),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(500)))
}).annotations({ examples: refundExamples }))

export const RefundResult = Schema.Struct({
  transactionId: Schema.UUID,
  status: TransactionStatus,
  method: PaymentMethod,
  amount: Schema.Int,
  refundedAmount: Schema.Int,
  reason: Schema.optional(Schema.String),
  refundedAt: Schema.String
})

export const TransactionDetail = Schema.Struct({
  id: Schema.UUID,
  orderId: Schema.NullOr(Schema.UUID),
  method: PaymentMethod,
  amount: Schema.Int,
  status: TransactionStatus,
  refundedAmount: Schema.Int,
  installments: Schema.optional(Schema.Int),
  paidAt: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  pix: Schema.optional(Schema.Struct({ emv: Schema.String, qrCodeUrl: Schema.String, expiresAt: Schema.String })),
  boleto: Schema.optional(Schema.Struct({ barcode: Schema.String, digitableLine: Schema.String, pdfUrl: Schema.String, dueDate: Schema.String })),
  card: Schema.optional(Schema.Struct({ brand: Schema.String, last4: Schema.String })),
  declineCode: Schema.NullOr(Schema.String)
})

const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(Schema.String.annotations({
    description: "1–255 printable characters (a UUID v4 per attempt is recommended); remembered 24 hours per account"
  }))
})

const transactionId = HttpApiSchema.param("transactionId", Uuid)

export class PaymentsApi extends HttpApiGroup.make("payments")
  .add(HttpApiEndpoint.post("process", "/process")
    .setPayload(ProcessPayment)
    .setHeaders(IdempotencyHeaders)
    .addSuccess(PaymentResult, { status: 201 })
    .addError(BadRequest).addError(NotFound).addError(Conflict).addError(UnprocessableEntity)
    .annotate(OpenApi.Description, "Charges an order. PIX and BOLETO answer 201 PENDING with their codes; an approved CARD 201 CAPTURED. A declined card is 422 `card_declined` (or `insufficient_funds`, `expired_card`, `incorrect_cvc`, `fraud_suspected`) and a DECLINED transaction is recorded; an acquirer failure is 422 `processing_error` with a FAILED transaction. 404 `orderId not found`; 409 when the order is PAID, EXPIRED or CANCELLED; 400 when `amount` differs from the order's. With `Idempotency-Key`: a replay answers the original status and body with `Idempotent-Replayed: true`; 409 `idempotency_key_in_use` while the first is running; 422 `idempotency_key_reused` for another body."))
  .add(HttpApiEndpoint.post("tokenize", "/tokenize-card")
    .setPayload(TokenizeCard)
    .addSuccess(Schema.Struct({ cardToken: Schema.String }), { status: 201 })
    .addError(BadRequest).addError(NotFound).addError(UnprocessableEntity)
    .annotate(OpenApi.Description, "Verifies the card with the acquirer (422 `expired_card`, `incorrect_cvc`) and stores it for the customer: PAN encrypted, CVV never stored. The token charges only orders of that customer, in this account."))
  .add(HttpApiEndpoint.post("refund", "/refund")
    .setPayload(RefundPayment)
    .setHeaders(IdempotencyHeaders)
    .addSuccess(RefundResult)
    .addError(BadRequest).addError(NotFound).addError(Conflict).addError(UnprocessableEntity)
    .annotate(OpenApi.Description, "Full refund without `amount`, partial with it (CARD and PIX; BOLETO full only). `refundedAmount` is cumulative. 409 for PENDING, DECLINED, FAILED or REFUNDED transactions; 400 when `amount` exceeds the refundable balance. A full refund cancels the order."))
  .add(HttpApiEndpoint.get("transaction")`/transaction/${transactionId}`
    .addSuccess(TransactionDetail)
    .addError(BadRequest).addError(NotFound)
    .annotate(OpenApi.Description, "The Transaction plus `refundedAmount` and the method's details: PIX code, boleto codes, or card brand and last four digits."))
  .middleware(ApiKeyAuth)
  .prefix("/payment-gateway")
  .annotate(OpenApi.Title, "Payments")
{}
