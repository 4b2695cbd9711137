import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict, NotFound } from "../shared/errors.ts"
import { payload } from "../shared/payload.ts"

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max))

/** The hosted card form's fields (docs/checkout.md "Hosted card form"); POST body only, never a URL. */
export const HostedCard = payload(
  Schema.Struct({
    holder_name: Text(255),
    number: Text(32),
    exp_month: Text(2),
    exp_year: Text(4),
    cvv: Text(4),
    installments: Schema.optional(
      Schema.Number.annotations({
        description: "the plan the buyer chose, 1 to the charge's max_installments; absent: the charge's own plan"
      })
    )
  })
)

const token = HttpApiSchema.param("token", Schema.String)

/** The buyer's hosted checkout (CONTRACT-v1 §6): no API key, the token in the URL is the credential. */
export class CheckoutApi extends HttpApiGroup.make("checkout")
  .add(
    HttpApiEndpoint.get("page")`/${token}`
      .addSuccess(HttpApiSchema.Text({ contentType: "text/html" }))
      .addError(NotFound)
      .annotate(OpenApi.Description, "The buyer's payment page (pt-BR), live status without reload.")
  )
  .add(
    HttpApiEndpoint.get("status")`/${token}/status`
      .addSuccess(Schema.Struct({ status: Schema.String }))
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "The page's state: pending, processing, paid, expired, refused, failed, partially_refunded, refunded, disputed."
      )
  )
  .add(
    HttpApiEndpoint.post("payByCard")`/${token}/card`
      .setPayload(HostedCard)
      .addSuccess(Schema.Struct({ status: Schema.String, reason: Schema.NullOr(Schema.String) }))
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Pay a card charge on its hosted form")
      .annotate(
        OpenApi.Description,
        "The buyer's card for a card charge created without one (PCI SAQ-A: it never reaches the merchant). " +
          "Answers the page's new state (`paid`, `refused` with a buyer-readable `reason`, `processing` when " +
          "held for review). One card per charge: a second submission is a 409."
      )
  )
  .add(
    HttpApiEndpoint.get("script", "/assets/checkout.js").addSuccess(
      HttpApiSchema.Text({ contentType: "text/javascript" })
    )
  )
  .add(HttpApiEndpoint.get("style", "/assets/checkout.css").addSuccess(HttpApiSchema.Text({ contentType: "text/css" })))
  .prefix("/checkout")
  .annotate(OpenApi.Title, "Hosted checkout") {}
