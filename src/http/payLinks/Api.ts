import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  BadRequest,
  Conflict,
  NotFound,
  ServiceUnavailable,
  TooManyRequests,
  UnprocessableEntity
} from "../shared/errors.ts"
import { payload } from "../shared/payload.ts"

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max))

/** What the buyer sends from a link's page (docs/payment-links.md "The buyer's page"). */
export const LinkVisit = payload(
  Schema.Struct({
    method: Text(20).annotations({ description: "one of the link's payment_methods: credit_card, pix, billet" }),
    amount: Schema.optionalWith(Schema.Number.annotations({ description: "centavos; open-amount links only" }), {
      exact: true
    }),
    customer: Schema.Struct({ name: Text(255), email: Text(254), document: Text(32) })
  })
)

const id = HttpApiSchema.param("id", Schema.String)

/** A payment link's public page (issue 20 §4): no API key, the link's id in the URL names it. */
export class PayLinksApi extends HttpApiGroup.make("payLinks")
  .add(
    HttpApiEndpoint.get("page")`/${id}`
      .addSuccess(HttpApiSchema.Text({ contentType: "text/html" }))
      .addError(NotFound)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "The buyer's page of a payment link (pt-BR): choose the method (and the amount of an open link), " +
          "give name, email and CPF/CNPJ. A deactivated, expired or used-up link answers a page saying so " +
          "(410) to a browser and 409 `payment_link_inactive|expired|used_up` to an API client."
      )
  )
  .add(
    HttpApiEndpoint.post("visit")`/${id}`
      .setPayload(LinkVisit)
      .addSuccess(Schema.Struct({ checkout_url: Schema.String }), { status: 201 })
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .addError(TooManyRequests)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Pay through a payment link")
      .annotate(
        OpenApi.Description,
        "Creates this visit's own v1 transaction in the link's account and mode (a card one without card " +
          "data: the buyer types it on the hosted form) and answers its `checkout_url`, where the page sends " +
          "the buyer. 400 names the broken field; 409 when the link takes no more visits; 429 " +
          "`payment_link_rate_limited` (with `Retry-After`) past the link's visits per minute."
      )
  )
  .add(
    HttpApiEndpoint.get("script", "/assets/paylink.js").addSuccess(
      HttpApiSchema.Text({ contentType: "text/javascript" })
    )
  )
  .add(HttpApiEndpoint.get("style", "/assets/paylink.css").addSuccess(HttpApiSchema.Text({ contentType: "text/css" })))
  .prefix("/pay")
  .annotate(OpenApi.Title, "Payment link pages") {}
