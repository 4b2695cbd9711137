import { ScopeResource } from "../../shared/annotations.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { EVENT_TYPES } from "../../../domain/events.ts"
import { Uuid } from "../../../domain/fields.ts"
import { Delivery, DeliveryStatus, Webhook } from "../../../domain/webhook.ts"
import { LivemodeField } from "../../shared/livemode.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { ApiKeyAuth } from "../../shared/security.ts"

/** The webhook endpoint as the API shows it: with its mode (issue 24 §1); each mode has its own. */
export const WebhookBody = Schema.Struct({ ...Webhook.fields, livemode: LivemodeField }).annotations({
  identifier: "Webhook"
})

export const UpsertWebhook = payload(
  Schema.Struct({
    url: Schema.String.pipe(Schema.maxLength(2048)).annotations({
      description: "public https URL (http and private addresses only with WEBHOOK_ALLOW_PRIVATE_URLS)"
    })
  })
)

export const DeliveriesQuery = Schema.Struct({
  status: Schema.optional(DeliveryStatus),
  event: Schema.optional(Schema.Literal(...EVENT_TYPES))
})

const deliveryId = HttpApiSchema.param("deliveryId", Uuid)

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .annotate(ScopeResource, "webhooks")
  .add(
    HttpApiEndpoint.post("upsert", "/upsert")
      .setPayload(UpsertWebhook)
      .addSuccess(WebhookBody, { status: 201 })
      .addSuccess(WebhookBody.annotations({ description: "The URL was replaced; the secret is kept" }), { status: 200 })
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Registers (201) or replaces (200) the account's single webhook URL. `secret` (`whsec_…`) verifies " +
          "the Standard Webhooks signature of every delivery; replacing the " +
          "URL keeps it, delete and register again to rotate it. The URL must resolve to a " +
          "public address (checked again at each delivery)."
      )
  )
  .add(HttpApiEndpoint.get("get", "/").addSuccess(WebhookBody).addError(NotFound))
  .add(
    HttpApiEndpoint.del("remove", "/")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotate(OpenApi.Description, "No further deliveries; pending ones are dropped (FAILED, `nextRetryAt` null).")
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/deliveries")
      .setUrlParams(DeliveriesQuery)
      .addSuccess(Schema.Struct({ deliveries: Schema.Array(Delivery) }))
      .addError(BadRequest)
      .annotate(OpenApi.Description, "Delivery records, newest first, kept 30 days; filter by `status` and `event`.")
  )
  .add(
    HttpApiEndpoint.post("retry")`/deliveries/${deliveryId}/retry`
      .addSuccess(Delivery, { status: 202 })
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Queues one more attempt now; answers the record with status PENDING.")
  )
  .middleware(ApiKeyAuth)
  .prefix("/webhooks")
  .annotate(OpenApi.Title, "Webhooks") {}
