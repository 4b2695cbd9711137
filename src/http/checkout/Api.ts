import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { NotFound } from "../shared/errors.ts"

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
    HttpApiEndpoint.get("script", "/assets/checkout.js").addSuccess(
      HttpApiSchema.Text({ contentType: "text/javascript" })
    )
  )
  .add(HttpApiEndpoint.get("style", "/assets/checkout.css").addSuccess(HttpApiSchema.Text({ contentType: "text/css" })))
  .prefix("/checkout")
  .annotate(OpenApi.Title, "Hosted checkout") {}
