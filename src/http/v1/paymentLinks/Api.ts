import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { LivemodeField } from "../../shared/livemode.ts"
import { Idempotent, ScopeResource } from "../../shared/annotations.ts"
import { BadRequest, Conflict, NotFound, UnprocessableEntity } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { ApiTokenAuth } from "../security.ts"
import { CursorParam, Pagination, V1Transaction } from "../transactions/Api.ts"
import { CreatePaymentLinkWire, UpdatePaymentLinkWire } from "./command.ts"

export const createExample: CreatePaymentLinkWire = {
  name: "Camiseta Azul",
  description: "Tamanho M, entrega em 5 dias úteis",
  amount: 8_990,
  items: [{ name: "Camiseta Azul M", quantity: 1, unit_price: 8_990 }],
  payment_methods: ["credit_card", "pix"],
  max_installments: 3,
  max_uses: 50,
  metadata: { campaign: "natal" }
}

// No `expires_at`: a fixed date is refused once it has passed (the field's description says its form).
export const updateExample: UpdatePaymentLinkWire = {
  name: "Camiseta Azul — últimas unidades",
  max_uses: 80
}

/** A payment link in v1's words (docs/payment-links.md, an extension of CONTRACT-v1). */
export const V1PaymentLink = Schema.Struct({
  livemode: LivemodeField,
  id: Schema.String,
  url: Schema.String.annotations({ description: "the buyer's page: share it; each visit creates a transaction" }),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  amount: Schema.NullOr(Schema.Int).annotations({ description: "centavos; null: the buyer chooses (open amount)" }),
  min_amount: Schema.NullOr(Schema.Int),
  max_amount: Schema.NullOr(Schema.Int),
  items: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      quantity: Schema.Int,
      unit_price: Schema.Int,
      sku: Schema.NullOr(Schema.String)
    })
  ),
  payment_methods: Schema.Array(Schema.Literal("credit_card", "pix", "billet")),
  max_installments: Schema.Int,
  expires_at: Schema.NullOr(Schema.String),
  max_uses: Schema.NullOr(Schema.Int),
  uses: Schema.Int.annotations({ description: "transactions created through the link so far" }),
  active: Schema.Boolean,
  status: Schema.Literal("active", "inactive", "expired", "used_up").annotations({
    description: "whether the link takes a visit now, and why not"
  }),
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({ identifier: "V1PaymentLink" })

const Success = <A, I>(data: Schema.Schema<A, I>) => Schema.Struct({ success: Schema.Literal(true), data })

const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.annotations({
      description: "1–255 printable characters (a UUID v4 per attempt is recommended); remembered 24 hours per account"
    })
  )
})

export const PaymentLinkListParams = Schema.Struct({
  page: Schema.optional(Schema.String),
  cursor: CursorParam,
  per_page: Schema.optional(Schema.String),
  active: Schema.optional(Schema.String.annotations({ description: "true or false" })),
  created_from: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo), inclusive" })),
  created_to: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo), inclusive" }))
})

export const LinkTransactionsParams = Schema.Struct({
  page: Schema.optional(Schema.String),
  cursor: CursorParam,
  per_page: Schema.optional(Schema.String)
})

const id = HttpApiSchema.param("id", Schema.String)

export class V1PaymentLinksApi extends HttpApiGroup.make("v1PaymentLinks")
  .annotate(ScopeResource, "payment_links")
  .add(
    HttpApiEndpoint.post("create", "/payment_links")
      .setPayload(payload(CreatePaymentLinkWire.annotations({ examples: [createExample] })))
      .setHeaders(IdempotencyHeaders)
      .annotate(Idempotent, true)
      .addSuccess(Success(V1PaymentLink), { status: 201 })
      .addError(BadRequest)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .annotate(OpenApi.Summary, "Create a payment link")
      .annotate(
        OpenApi.Description,
        "Extension of v1 (docs/payment-links.md). A reusable link: a fixed `amount`, or none (the buyer chooses, " +
          "within `min_amount`/`max_amount`); `payment_methods` among credit_card, pix, billet; `max_installments` " +
          "for cards; optional `expires_at` and `max_uses`. Each visit of `url` creates its own v1 transaction in " +
          "this account and mode. 400 names every broken field. Idempotency-Key as for transactions."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/payment_links")
      .setUrlParams(PaymentLinkListParams)
      .addSuccess(
        Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(V1PaymentLink), pagination: Pagination })
      )
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Newest first. `page` from 1 or `cursor`, `per_page` 1–100 (default 20); filters `active` (true or " +
          "false), `created_from`, `created_to` (YYYY-MM-DD, São Paulo, inclusive)."
      )
  )
  .add(
    HttpApiEndpoint.get("get")`/payment_links/${id}`
      .addSuccess(Success(V1PaymentLink))
      .addError(NotFound)
      .annotate(OpenApi.Description, "The link; 404 when unknown or of another account.")
  )
  .add(
    HttpApiEndpoint.patch("update")`/payment_links/${id}`
      .setPayload(payload(UpdatePaymentLinkWire.annotations({ examples: [updateExample] })))
      .addSuccess(Success(V1PaymentLink))
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Changes any of name, description, items, payment_methods, max_installments, expires_at, max_uses and " +
          "metadata; omitted fields are unchanged, null clears the nullable ones. `max_uses` cannot go below " +
          "`uses`. The amount and its bounds cannot be changed (400): create a new link. Raising `max_uses` or " +
          "moving `expires_at` later makes a used-up or expired link take visits again (docs/payment-links.md)."
      )
  )
  .add(
    HttpApiEndpoint.post("deactivate")`/payment_links/${id}/deactivate`
      .addSuccess(Success(V1PaymentLink))
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "The link takes no more visits (its page says so); its transactions are untouched. Deactivating an " +
          "inactive link answers it unchanged."
      )
  )
  .add(
    HttpApiEndpoint.post("activate")`/payment_links/${id}/activate`
      .addSuccess(Success(V1PaymentLink))
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Undoes a deactivation: the same link and address take visits again, `uses` as it was. An expired or " +
          "used-up link stays `expired` or `used_up`. Activating an active link answers it unchanged."
      )
  )
  .add(
    HttpApiEndpoint.get("transactions")`/payment_links/${id}/transactions`
      .setUrlParams(LinkTransactionsParams)
      .addSuccess(
        Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(V1Transaction), pagination: Pagination })
      )
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "The transactions the link's visits created, newest first, paged as every v1 list."
      )
  )
  .middleware(ApiTokenAuth)
  .annotate(OpenApi.Title, "Payment links (v1)") {}
