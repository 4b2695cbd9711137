import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { LivemodeField } from "../../shared/livemode.ts"
import { Schema } from "effect"
import { Idempotent, ReadsAhead, ScopeResource } from "../../shared/annotations.ts"
import { BadRequest, Conflict, NotFound, ServiceUnavailable, UnprocessableEntity } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { ApiTokenAuth } from "../security.ts"
import { CreateTransactionWire } from "./command.ts"
import { createExamples, transactionExample } from "./examples.ts"

const Nullable = Schema.NullOr
const Customer = Schema.Struct({
  name: Schema.String,
  email: Schema.String,
  phone: Nullable(Schema.String),
  document: Schema.String,
  document_type: Nullable(Schema.Literal("cpf", "cnpj")),
  ip: Schema.optional(Nullable(Schema.String)),
  zip_code: Schema.optional(Nullable(Schema.String)),
  street_name: Schema.optional(Nullable(Schema.String)),
  number: Schema.optional(Nullable(Schema.String)),
  complement: Schema.optional(Nullable(Schema.String)),
  neighborhood: Schema.optional(Nullable(Schema.String)),
  city: Schema.optional(Nullable(Schema.String)),
  state: Schema.optional(Nullable(Schema.String)),
  country: Schema.optional(Nullable(Schema.String))
})

/** The v1 transaction of CONTRACT-v1 §2. */
export const V1Transaction = Schema.Struct({
  livemode: LivemodeField,
  hash: Schema.String,
  status: Schema.String.annotations({
    description:
      "pending, processing, antifraud, paid, refused, failed, cancelled, refunded (total or partial: see " +
      "refunded_amount), pre_chargeback, chargeback, med_received, med_analysis, med_reproved"
  }),
  method: Schema.Literal("credit_card", "pix", "billet"),
  amount: Schema.Int,
  installments: Schema.Int,
  max_installments: Schema.optional(Schema.Int).annotations({
    description:
      "extension, a credit_card charge created without a card: the most installments the buyer may choose on " +
      'the hosted form (docs/checkout.md "The buyer\'s installments"); installments is the plan chosen'
  }),
  amount_interest: Schema.Int,
  amount_total: Schema.Int.annotations({ description: "what the buyer is charged: amount + amount_interest" }),
  refunded_amount: Schema.Int,
  customer: Nullable(Customer),
  products: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      quantity: Schema.Int,
      unit_price: Schema.Int,
      sku: Nullable(Schema.String),
      link: Nullable(Schema.String)
    })
  ),
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  comment: Nullable(Schema.String),
  pix: Schema.optional(
    Schema.Struct({ qr_code: Schema.String, qr_code_url: Schema.String, expires_at: Nullable(Schema.String) })
  ),
  billet: Schema.optional(
    Schema.Struct({
      barcode: Schema.String,
      digitable_line: Schema.String,
      pdf_url: Schema.String,
      due_date: Schema.String,
      payment: Schema.optional(
        Schema.Struct({
          paid_on: Schema.String,
          amount_paid: Schema.Number,
          principal: Schema.Number,
          fine: Schema.Number,
          interest: Schema.Number,
          discount: Schema.Number,
          abatement: Schema.Number
        }).annotations({ description: "once paid: what the bank reported, in parts (docs/boleto.md)" })
      )
    })
  ),
  card: Schema.optional(Schema.Struct({ brand: Schema.String, last4: Schema.String, holder_name: Schema.String })),
  split: Schema.Array(
    Schema.Struct({
      subaccount_id: Schema.String,
      amount: Schema.optional(Schema.Int),
      percentage: Schema.optional(Schema.Number)
    })
  ).annotations({ description: "the split rules as sent; [] when none" }),
  refusal_reason: Nullable(Schema.String),
  checkout_url: Nullable(Schema.String),
  expires_at: Nullable(Schema.String),
  paid_at: Nullable(Schema.String),
  created_at: Nullable(Schema.String),
  updated_at: Nullable(Schema.String)
}).annotations({ identifier: "V1Transaction", examples: [transactionExample] })

export const Pagination = Schema.Struct({
  page: Schema.Int,
  per_page: Schema.Int,
  total: Schema.Int,
  total_pages: Schema.Int,
  next_cursor: Schema.NullOr(Schema.String).annotations({
    description: "the next page, passed back as `cursor` (a seek: deep pages cost what page 1 does); null on the last"
  })
})

/** Every v1 list's `cursor` parameter (src/http/v1/cursor.ts). */
export const CursorParam = Schema.optional(
  Schema.String.annotations({
    description: "pagination.next_cursor of the page before, in place of `page` (it names its page and per_page)"
  })
)

const Success = <A, I>(data: Schema.Schema<A, I>) => Schema.Struct({ success: Schema.Literal(true), data })

const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.annotations({
      description: "1–255 printable characters (a UUID v4 per attempt is recommended); remembered 24 hours per account"
    })
  )
})

const hash = HttpApiSchema.param("hash", Schema.String)

/** What a billet asks on a date, by its charge terms (docs/boleto.md); centavos. */
export const V1AmountDue = Schema.Struct({
  hash: Schema.String,
  date: Schema.String,
  due_date: Schema.String,
  principal: Schema.Number,
  abatement: Schema.Number,
  discount: Schema.Number,
  fine: Schema.Number,
  interest: Schema.Number,
  amount_due: Schema.Number,
  days_late: Schema.Number
})

export const RefundBody = payload(
  Schema.Struct({
    amount: Schema.optional(
      Schema.Number.annotations({ description: "centavos; omitted: the whole refundable balance" })
    ),
    reason: Schema.optional(Schema.String.annotations({ description: "internal reason, ≤ 255 characters" }))
  })
)

export const ListParams = Schema.Struct({
  page: Schema.optional(Schema.String),
  cursor: CursorParam,
  per_page: Schema.optional(Schema.String),
  status: Schema.optional(Schema.String),
  method: Schema.optional(Schema.String),
  document: Schema.optional(Schema.String),
  created_from: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo), inclusive" })),
  created_to: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo), inclusive" }))
})

export class V1TransactionsApi extends HttpApiGroup.make("v1Transactions")
  .annotate(ScopeResource, "transactions")
  .add(
    HttpApiEndpoint.post("create", "/transactions")
      .annotate(ScopeResource, "payments")
      .setPayload(payload(CreateTransactionWire.annotations({ examples: createExamples })))
      .setHeaders(IdempotencyHeaders)
      .annotate(Idempotent, true)
      .addSuccess(Success(V1Transaction), { status: 201 })
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Create a transaction (credit_card, pix or billet)")
      .annotate(
        OpenApi.Description,
        "201 for every outcome once the body is valid: pix and billet `pending` with their codes; an approved " +
          "card `paid`; a card refused by the acquirer or the antifraud `refused` with `refusal_reason`; an " +
          "acquirer failure `failed`; a card the antifraud sends to manual review (test card 4000000000000101) " +
          "`antifraud`, see GET /antifraud/{transaction_hash}. 400 names every " +
          "broken field by its path (`customer.document`, `products[0].unit_price`, `card.number`). 404 " +
          "`card_token not found`. Idempotency-Key as on /api: replays are byte for byte with " +
          "`Idempotent-Replayed: true`, 409 while the first runs, 422 for another body."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/transactions")
      .setUrlParams(ListParams)
      .addSuccess(
        Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(V1Transaction), pagination: Pagination })
      )
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Newest first, every transaction of the account (made through /api or /public/v1). `page` from 1, " +
          "`per_page` 1–100 (default 20); filters `status` (v1 word), `method`, `document`, `created_from`, " +
          "`created_to` (YYYY-MM-DD, São Paulo, inclusive). An unknown value names its parameter (400). " +
          "`pagination.next_cursor`, passed back as `cursor`, reads the next page by keyset: deep pages cost " +
          "what the first does (a `page` number is an offset)."
      )
  )
  .add(
    HttpApiEndpoint.get("get")`/transactions/${hash}`
      .addSuccess(Success(V1Transaction))
      .addError(NotFound)
      .annotate(ReadsAhead, { kind: "transaction" as const, param: "hash" })
      .annotate(OpenApi.Description, "The transaction; 404 when unknown or of another account.")
  )
  .add(
    HttpApiEndpoint.get("amountDue")`/transactions/${hash}/amount_due`
      .setUrlParams(
        Schema.Struct({
          date: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo); default today" }))
        })
      )
      .addSuccess(Success(V1AmountDue))
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "What a billet asks if paid on `date`: its fine, interest, discount and abatement (docs/boleto.md); " +
          "409 `not_a_boleto` for other methods."
      )
  )
  .add(
    HttpApiEndpoint.post("refund")`/transactions/${hash}/refund`
      .annotate(ScopeResource, "refunds")
      .setPayload(RefundBody)
      .setHeaders(IdempotencyHeaders)
      .annotate(Idempotent, true)
      .addSuccess(Success(V1Transaction))
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .addError(ServiceUnavailable)
      .annotate(
        OpenApi.Description,
        "Full refund without `amount`, partial with it (billet: full only). Refundable: `paid`, or `refunded` " +
          "with a balance left; otherwise 409 `not_refundable`. An amount above the refundable balance " +
          "(amount_total − refunded_amount; a billet paid with fine, interest or discount: its " +
          "`billet.payment.amount_paid` − refunded_amount) is 400 naming `amount`. Concurrent refunds never exceed " +
          "the balance."
      )
  )
  .middleware(ApiTokenAuth)
  .annotate(OpenApi.Title, "Transactions (v1)") {}
