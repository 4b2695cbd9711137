import { Schema } from "effect"
import type { EventType } from "./events.ts"

export const DeliveryStatus = Schema.Literal("SUCCESS", "FAILED", "PENDING")
export type DeliveryStatus = typeof DeliveryStatus.Type

export class Webhook extends Schema.Class<Webhook>("Webhook")({
  url: Schema.String,
  secret: Schema.String,
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {}

/** The Webhook delivery record of interface-v2. */
export class Delivery extends Schema.Class<Delivery>("Delivery")({
  deliveryId: Schema.UUID,
  event: Schema.String,
  status: DeliveryStatus,
  httpStatus: Schema.NullOr(Schema.Int),
  attemptedAt: Schema.NullOr(Schema.Date),
  nextRetryAt: Schema.NullOr(Schema.Date),
  attempts: Schema.Int,
  createdAt: Schema.Date
}) {}

/**
 * When the next attempt happens after `attempts` failed ones since the schedule began (at creation, or at
 * a manual resend: docs/webhooks.md "Deliveries"): the configured schedule (seconds),
 * spread by ±10% so that a receiver coming back up is not hit by every retry at once. None when
 * the schedule is spent.
 */
export const nextRetryDelayMs = (
  schedule: ReadonlyArray<number>,
  attempts: number,
  random: number
): number | undefined => {
  const seconds = schedule[attempts - 1]
  if (seconds === undefined) return undefined
  return Math.round(seconds * 1000 * (0.9 + 0.2 * random))
}

/**
 * One delivery with what its last attempt sent and got back (docs/webhooks.md "Deliveries"): the request
 * headers as sent (the signature included, never the secret) and body, the response status and first 4 KB
 * of its body, the latency, and the error when nothing usable answered (connection refused, timeout, …).
 */
export class DeliveryDetail extends Schema.Class<DeliveryDetail>("DeliveryDetail")({
  deliveryId: Schema.UUID,
  eventId: Schema.UUID,
  event: Schema.String,
  url: Schema.String.annotations({
    description: "where the last attempt was sent (the webhook's URL then); before any, the URL it was made for"
  }),
  status: DeliveryStatus,
  attempts: Schema.Int,
  attemptedAt: Schema.NullOr(Schema.Date),
  nextRetryAt: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date,
  request: Schema.NullOr(
    Schema.Struct({
      headers: Schema.Record({ key: Schema.String, value: Schema.String }),
      body: Schema.String
    })
  ),
  response: Schema.NullOr(
    Schema.Struct({
      status: Schema.NullOr(Schema.Int),
      body: Schema.NullOr(Schema.String).annotations({ description: "the first 4 KB of the body" }),
      latencyMs: Schema.NullOr(Schema.Int)
    })
  ),
  error: Schema.NullOr(Schema.String).annotations({
    description: "why the last attempt failed: `HTTP 500`, `connection failed (ECONNREFUSED)`, `timeout`, …"
  })
}) {}

/** The webhook after a secret rotation: the new secret, and until when the previous one still signs. */
export class RotatedWebhook extends Schema.Class<RotatedWebhook>("RotatedWebhook")({
  url: Schema.String,
  secret: Schema.String,
  previousSecretExpiresAt: Schema.Date,
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {}

/** The longest overlap of a rotation, and the default (docs/webhooks.md "Secret rotation"). */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600

/** The event name of "send test event" (docs/webhooks.md): receivers ignore what they do not know. */
export const TEST_EVENT = "webhook.test" satisfies EventType
