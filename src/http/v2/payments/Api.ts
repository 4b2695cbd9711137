import { TransactionId } from "../../../domain/ids.ts"
import { Idempotent, PaysOrder, ScopeResource } from "../../shared/annotations.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { LivemodeField } from "../../shared/livemode.ts"
import { Schema } from "effect"
import { toPaymentCommand, toTokenizeCommand } from "./command.ts"
import { Amount, Birthdate, Cep, Cpf, MobilePhone, Name, Uf, Uuid } from "../../../domain/fields.ts"
import { PaymentMethod, TransactionStatus } from "../../../domain/transaction.ts"
import { BadRequest, Conflict, NotFound, ServiceUnavailable, UnprocessableEntity } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { paymentResultExamples, processExamples, refundExamples, tokenizeExamples } from "./examples.ts"
import { ApiKeyAuth } from "../../shared/security.ts"
import { WireTerms } from "../../shared/chargeTerms.ts"

const Address = Schema.Struct({
  postal_code: Cep,
  street: Name,
  number: Name,
  neighborhood: Name,
  city: Name,
  state: Uf
})

const CardBrand = Schema.Literal("Visa", "Mastercard", "Elo")

const WireAddress = Schema.Struct({
  postal_code: Schema.String.annotations({ description: "CEP, 8 digits" }),
  street: Schema.String,
  number: Schema.String,
  neighborhood: Schema.String,
  city: Schema.String,
  state: Schema.String.annotations({ description: "UF, e.g. SP" })
})

// The struct fixes only the JSON types; decodeProcess then applies every rule at once, so a bad CEP
// and a bad card number are reported together, card fields are ignored when a cardToken is given,
// as the spec says, and the handler receives the core's PaymentCommand.
const ProcessWire = payload(
  Schema.Struct({
    orderId: Schema.String.annotations({ description: "UUID of a PENDING order of the account" }),
    method: PaymentMethod,
    amount: Schema.Number.annotations({ description: "centavos; must equal the order amount" }),
    buyerDoc: Schema.optionalWith(
      Schema.String.annotations({ description: "CPF (11) or CNPJ (14 digits); required for PIX and BOLETO" }),
      { exact: true }
    ),
    buyerCellNumber: Schema.String.annotations({ description: "Brazilian mobile, e.g. (11) 91234-5678" }),
    buyerAddress: WireAddress,
    installments: Schema.optionalWith(Schema.Number.annotations({ description: "CARD: 1 to 12 (default 1)" }), {
      exact: true
    }),
    cardHolderName: Schema.optionalWith(Schema.String, { exact: true }),
    cardNumber: Schema.optionalWith(Schema.String.annotations({ description: "16 digits, Luhn-valid" }), {
      exact: true
    }),
    cardExpirationMonth: Schema.optionalWith(Schema.String.annotations({ description: "2 digits" }), { exact: true }),
    cardExpirationYear: Schema.optionalWith(Schema.String.annotations({ description: "2 digits" }), { exact: true }),
    cardSecurityCode: Schema.optionalWith(Schema.String.annotations({ description: "3 or 4 digits" }), { exact: true }),
    cardBrand: Schema.optionalWith(
      Schema.String.annotations({ description: "Visa, Mastercard or Elo, matching the card number" }),
      { exact: true }
    ),
    cardToken: Schema.optionalWith(
      Schema.String.annotations({ description: "from tokenize-card; the card* fields are then ignored" }),
      { exact: true }
    ),
    buyerBirthdate: Schema.optionalWith(
      Schema.String.annotations({ description: "YYYY-MM-DD; required for CARD unless cardToken" }),
      { exact: true }
    ),
    boleto: Schema.optionalWith(WireTerms("v2"), { exact: true })
  }).annotations({ examples: processExamples })
)

export const ProcessPayment = payload(toPaymentCommand(ProcessWire))

/** A boleto as v2 shows it: its codes, its charge terms, and once paid what was paid in parts (docs/boleto.md). */
const BoletoView = Schema.Struct({
  barcode: Schema.String,
  digitableLine: Schema.String,
  pdfUrl: Schema.String,
  dueDate: Schema.String,
  terms: Schema.optional(WireTerms("v2")),
  payment: Schema.optional(
    Schema.Struct({
      paidOn: Schema.String,
      amountPaid: Schema.Number,
      principal: Schema.Number,
      fine: Schema.Number,
      interest: Schema.Number,
      discount: Schema.Number,
      abatement: Schema.Number,
      rail: Schema.optional(
        Schema.Literal("pix", "barcode").annotations({ description: "a bolepix: the rail that paid first" })
      )
    }).annotations({ description: "once paid: what was paid, on which day, in parts (centavos)" })
  )
})

export const PaymentResult = Schema.Struct({
  livemode: LivemodeField,
  transactionId: Schema.UUID,
  status: TransactionStatus,
  method: PaymentMethod,
  amount: Schema.Int,
  installments: Schema.optional(Schema.Int),
  pix: Schema.optional(Schema.Struct({ emv: Schema.String, qrCodeUrl: Schema.String, expiresAt: Schema.String })),
  boleto: Schema.optional(BoletoView),
  card: Schema.optional(Schema.Struct({ brand: Schema.String, last4: Schema.String }))
}).annotations({ examples: paymentResultExamples })

const TokenizeWire = payload(
  Schema.Struct({
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
  }).annotations({ examples: tokenizeExamples })
)

export const TokenizeCard = payload(toTokenizeCommand(TokenizeWire))

export const RefundPayment = payload(
  Schema.Struct({
    transactionId: TransactionId,
    amount: Schema.optional(Amount),
    reason: Schema.optional(Schema.String.pipe(Schema.maxLength(500)))
  }).annotations({ examples: refundExamples })
)

export const RefundResult = Schema.Struct({
  livemode: LivemodeField,
  transactionId: Schema.UUID,
  status: TransactionStatus,
  method: PaymentMethod,
  amount: Schema.Int,
  refundedAmount: Schema.Int,
  reason: Schema.optional(Schema.String),
  refundedAt: Schema.String
})

export const TransactionDetail = Schema.Struct({
  livemode: LivemodeField,
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
  boleto: Schema.optional(BoletoView),
  card: Schema.optional(Schema.Struct({ brand: Schema.String, last4: Schema.String })),
  declineCode: Schema.NullOr(Schema.String)
})

const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.annotations({
      description: "1–255 printable characters (a UUID v4 per attempt is recommended); remembered 24 hours per account"
    })
  )
})

const transactionId = HttpApiSchema.param("transactionId", TransactionId)

export class PaymentsApi extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.post("process", "/process")
      .annotate(ScopeResource, "payments")
      .setPayload(ProcessPayment)
      .setHeaders(IdempotencyHeaders)
      .annotate(Idempotent, true)
      .annotate(PaysOrder, "orderId")
      .addSuccess(PaymentResult, { status: 201 })
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Description,
        "Charges an order. PIX and BOLETO answer 201 PENDING with their codes; an approved CARD 201 " +
          "CAPTURED. A declined card is 422 `card_declined` (or `insufficient_funds`, `expired_card`, " +
          "`incorrect_cvc`, `fraud_suspected`) and a DECLINED transaction is recorded; an acquirer " +
          "failure is 422 `processing_error` with a FAILED transaction. 404 `orderId not found`; 409 when " +
          "the order is PAID, EXPIRED or CANCELLED; 400 when `amount` differs from the order's. With " +
          "`Idempotency-Key`: a replay answers the original status and body with `Idempotent-Replayed: " +
          "true`; 409 `idempotency_key_in_use` while the first is running; 422 `idempotency_key_reused` " +
          "for another body."
      )
  )
  .add(
    HttpApiEndpoint.post("tokenize", "/tokenize-card")
      .annotate(ScopeResource, "cards")
      .setPayload(TokenizeCard)
      .addSuccess(Schema.Struct({ cardToken: Schema.String }), { status: 201 })
      .addError(BadRequest)
      .addError(NotFound)
      .addError(UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Verifies the card with the acquirer (422 `expired_card`, `incorrect_cvc`) and stores it for " +
          "the customer: PAN encrypted, CVV never stored. The token charges only orders of that customer, " +
          "in this account."
      )
  )
  .add(
    HttpApiEndpoint.post("refund", "/refund")
      .annotate(ScopeResource, "refunds")
      .setPayload(RefundPayment)
      .setHeaders(IdempotencyHeaders)
      .annotate(Idempotent, true)
      .addSuccess(RefundResult)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Description,
        "Full refund without `amount`, partial with it (CARD and PIX; BOLETO full only: what the buyer paid, " +
          "fine and interest included, discount excluded, `boleto.payment.amountPaid`). " +
          "`refundedAmount` is cumulative. 409 for PENDING, DECLINED, FAILED or REFUNDED transactions; " +
          "400 when `amount` exceeds the refundable balance. A full refund cancels the order."
      )
  )
  .add(
    HttpApiEndpoint.get("transaction")`/transaction/${transactionId}`
      .annotate(ScopeResource, "transactions")
      .addSuccess(TransactionDetail)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "The Transaction plus `refundedAmount` and the method's details: PIX code, boleto codes, or " +
          "card brand and last four digits."
      )
  )
  .middleware(ApiKeyAuth)
  .prefix("/payment-gateway")
  .annotate(OpenApi.Title, "Payments") {}
