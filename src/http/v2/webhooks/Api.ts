import { DashboardMode } from "../../dashboard/mode.ts"
import { ScopeResource } from "../../shared/annotations.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { EVENT_TYPES } from "../../../domain/events.ts"
import { instantOf } from "../../shared/instant.ts"
import { Uuid } from "../../../domain/fields.ts"
import {
  Delivery,
  DeliveryDetail,
  DeliveryStatus,
  MAX_ROTATION_OVERLAP_SECONDS,
  RotatedWebhook,
  Webhook
} from "../../../domain/webhook.ts"
import { LivemodeField } from "../../shared/livemode.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { ApiKeyAuth, SessionAuth } from "../../shared/security.ts"

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
  // Every name a delivery can carry, v1's and the withdrawals' and the test event's included (domain/events.ts).
  event: Schema.optional(Schema.Literal(...EVENT_TYPES))
})

const deliveryId = HttpApiSchema.param("deliveryId", Uuid)

const Instant = Schema.String.pipe(
  Schema.filter((raw) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(raw), {
    message: () => "must be an ISO 8601 timestamp with its offset"
  }),
  Schema.filter((raw) => instantOf(raw) !== undefined, { message: () => "must be a real instant" })
)

export const ResendFailed = payload(
  Schema.Struct({
    since: Instant.annotations({ description: "resend the FAILED deliveries created at or after this instant" })
  })
)

export const RotateSecret = payload(
  Schema.Struct({
    overlapSeconds: Schema.optional(
      Schema.Int.pipe(Schema.between(0, MAX_ROTATION_OVERLAP_SECONDS)).annotations({
        description: "how long the previous secret keeps signing beside the new one (default 86400, max 604800)"
      })
    )
  })
)

const deliveries = HttpApiEndpoint.get("deliveries", "/deliveries")
  .setUrlParams(DeliveriesQuery)
  .addSuccess(Schema.Struct({ deliveries: Schema.Array(Delivery) }))
  .addError(BadRequest)
  .annotate(OpenApi.Summary, "List webhook deliveries")
  .annotate(OpenApi.Description, "Delivery records, newest first, kept 30 days; filter by `status` and `event`.")

/** Webhook operations (issue 20 §2), served to API keys under /api/webhooks and to the dashboard. */
const detail = HttpApiEndpoint.get("delivery")`/deliveries/${deliveryId}`
  .addSuccess(DeliveryDetail)
  .addError(BadRequest)
  .addError(NotFound)
  .annotate(OpenApi.Summary, "Get one delivery with its request and response")
  .annotate(
    OpenApi.Description,
    "The delivery with its last attempt: the request's headers as sent (the signature included, never the " +
      "secret) and body, the response's status, first 4 KB of body and latency, and the error when nothing " +
      "usable answered (`connection failed (ECONNREFUSED)`, `timeout`, `HTTP 500`)."
  )
const resend = HttpApiEndpoint.post("resend")`/deliveries/${deliveryId}/resend`
  .addSuccess(Delivery, { status: 202 })
  .addError(BadRequest)
  .addError(NotFound)
  .annotate(OpenApi.Summary, "Resend one delivery")
  .annotate(
    OpenApi.Description,
    "Sends the delivery again now, whatever its status, with the same `webhook-id` (receivers deduplicate on " +
      "it) and the same body, signed afresh, and retries it on a fresh retry schedule if it fails; `attempts` " +
      "keeps counting every attempt. Answers the record with status PENDING."
  )
const resendFailed = HttpApiEndpoint.post("resendFailed", "/deliveries/resend-failed")
  .setPayload(ResendFailed)
  .addSuccess(Schema.Struct({ resent: Schema.Int }), { status: 202 })
  .addError(BadRequest)
  .annotate(OpenApi.Summary, "Resend every failed delivery since a time")
  .annotate(
    OpenApi.Description,
    "Every FAILED delivery created at or after `since` is queued again now, each with its own `webhook-id` " +
      "and a fresh retry schedule; answers how many. Nothing is resent while no webhook is registered."
  )
const rotate = HttpApiEndpoint.post("rotateSecret", "/rotate-secret")
  .setPayload(RotateSecret)
  .addSuccess(RotatedWebhook)
  .addError(BadRequest)
  .addError(NotFound)
  .annotate(OpenApi.Summary, "Rotate the signing secret")
  .annotate(
    OpenApi.Description,
    "Issues a new `whsec_…` secret. Until `previousSecretExpiresAt` every delivery carries two signatures in " +
      "`webhook-signature` (new, then previous, space-separated as Standard Webhooks allows), so a receiver " +
      "verifies with either while it switches."
  )
const sendTest = HttpApiEndpoint.post("sendTest", "/test")
  .addSuccess(Delivery, { status: 202 })
  .addError(NotFound)
  .annotate(OpenApi.Summary, "Send a test event")
  .annotate(
    OpenApi.Description,
    "Delivers a `webhook.test` event to the registered URL like any other (signed, retried, listed); answers " +
      "its delivery record."
  )

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
  .add(deliveries)
  .add(
    HttpApiEndpoint.post("retry")`/deliveries/${deliveryId}/retry`
      .addSuccess(Delivery, { status: 202 })
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Queues an attempt now, retried on a fresh retry schedule if it fails; answers the record with status PENDING."
      )
  )
  .add(detail)
  .add(resend)
  .add(resendFailed)
  .add(rotate)
  .add(sendTest)
  .middleware(ApiKeyAuth)
  .prefix("/webhooks")
  .annotate(OpenApi.Title, "Webhooks") {}

/** The webhook operations for the web dashboard: the login token, never an API key (issue 20 §1). */
export class DashboardWebhooksApi extends HttpApiGroup.make("dashboardWebhooks")
  .add(deliveries)
  .add(detail)
  .add(resend)
  .add(resendFailed)
  .add(rotate)
  .add(sendTest)
  .middleware(DashboardMode)
  .middleware(SessionAuth)
  .prefix("/dashboard/webhooks")
  .annotate(OpenApi.Title, "Dashboard webhooks") {}
