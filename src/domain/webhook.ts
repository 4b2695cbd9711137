import { Schema } from "effect"

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
 * When the next attempt happens after `attempts` failed ones: the configured schedule (seconds),
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
