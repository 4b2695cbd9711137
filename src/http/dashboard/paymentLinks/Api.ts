import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { SessionAuth } from "../../shared/security.ts"
import { createExample, updateExample, V1PaymentLink } from "../../v1/paymentLinks/Api.ts"
import { CreatePaymentLinkWire, UpdatePaymentLinkWire } from "../../v1/paymentLinks/command.ts"
import { DashboardTransaction } from "../Api.ts"
import { DashboardMode } from "../mode.ts"

const id = HttpApiSchema.param("id", Schema.String)
const Paging = Schema.Struct({
  page: Schema.optional(Schema.String.annotations({ description: "from 1" })),
  per_page: Schema.optional(Schema.String.annotations({ description: "1 to 100, default 20" }))
})

/**
 * Payment links for the web dashboard (docs/payment-links.md "Dashboard"): the login token and
 * `X-Gateway-Mode`, never an API key. A link is written and shown in the words of its v1 operations, the
 * one presentation of a link; its transactions in the dashboard's.
 */
export class DashboardPaymentLinksApi extends HttpApiGroup.make("dashboardPaymentLinks")
  .add(
    HttpApiEndpoint.get("list", "/payment-links")
      .setUrlParams(Paging)
      .addSuccess(Schema.Struct({ data: Schema.Array(V1PaymentLink), total: Schema.Int }))
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "List payment links")
      .annotate(OpenApi.Description, "The tenant's payment links, newest first, with their uses and status.")
  )
  .add(
    HttpApiEndpoint.post("create", "/payment-links")
      .setPayload(payload(CreatePaymentLinkWire.annotations({ examples: [createExample] })))
      .addSuccess(V1PaymentLink, { status: 201 })
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Create a payment link")
      .annotate(OpenApi.Description, "As POST /public/v1/payment_links: 400 names every broken field.")
  )
  .add(
    HttpApiEndpoint.patch("update")`/payment-links/${id}`
      .setPayload(payload(UpdatePaymentLinkWire.annotations({ examples: [updateExample] })))
      .addSuccess(V1PaymentLink)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Edit a payment link")
      .annotate(OpenApi.Description, "As PATCH /public/v1/payment_links/{id}: 400 names every broken field.")
  )
  .add(
    HttpApiEndpoint.post("deactivate")`/payment-links/${id}/deactivate`
      .addSuccess(V1PaymentLink)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Deactivate a payment link")
      .annotate(OpenApi.Description, "The link takes no more visits; another tenant's link is a 404.")
  )
  .add(
    HttpApiEndpoint.post("activate")`/payment-links/${id}/activate`
      .addSuccess(V1PaymentLink)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Activate a payment link again")
      .annotate(OpenApi.Description, "Undoes a deactivation; another tenant's link is a 404.")
  )
  .add(
    HttpApiEndpoint.get("transactions")`/payment-links/${id}/transactions`
      .setUrlParams(Paging)
      .addSuccess(Schema.Struct({ data: Schema.Array(DashboardTransaction), total: Schema.Int }))
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "A payment link's transactions")
      .annotate(OpenApi.Description, "The transactions the link's visits created, newest first.")
  )
  .middleware(DashboardMode)
  .middleware(SessionAuth)
  .prefix("/dashboard")
  .annotate(OpenApi.Title, "Dashboard payment links") {}
