import { Schema } from "effect"
import type { Trigger } from "./lifecycle.ts"
import { BoletoPayment, type Origin, PaymentMethod, TransactionStatus } from "./transaction.ts"

export { Origin } from "./transaction.ts"

/** What happened: the transaction was created, or one of the lifecycle's triggers moved it. */
export type EventKind = "created" | Trigger

/**
 * Every event name a webhook delivery can carry, so every name `GET /api/webhooks/deliveries?event=` accepts
 * (docs/webhooks.md "Deliveries"): the webhook events of CONTRACT §8 (v2 names), the dispute events both
 * interfaces share, v1's own names for a refusal and a cancellation and its withdrawals' events (CONTRACT-v1
 * §5), and the test event (docs/webhooks.md). The names the gateway sends are typed by it (the tables below,
 * `withdrawalEventBody`, `TEST_EVENT`), so a name sent cannot be missing here.
 */
export const EVENT_TYPES = [
  "transaction.created",
  "transaction.paid",
  "transaction.declined",
  "transaction.failed",
  "transaction.refunded",
  "transaction.partially_refunded",
  "transaction.chargeback",
  "pix.med_received",
  "pix.med_updated",
  "transaction.refused",
  "transaction.cancelled",
  "withdraw.paid",
  "withdraw.failed",
  "webhook.test"
] as const
export type EventType = (typeof EVENT_TYPES)[number]

const V2_NAMES: Readonly<Record<EventKind, EventType | null>> = {
  created: "transaction.created",
  capture: "transaction.paid",
  pay: "transaction.paid",
  chargeback_won: "transaction.paid",
  med_won: "transaction.paid",
  decline: "transaction.declined",
  fail: "transaction.failed",
  expire: "transaction.failed",
  cancel: "transaction.failed",
  refund_partial: "transaction.partially_refunded",
  refund_full: "transaction.refunded",
  chargeback_open: "transaction.chargeback",
  chargeback_lost: "transaction.chargeback",
  med_open: "pix.med_received",
  med_analysis: "pix.med_updated",
  med_lost: "pix.med_updated",
  review: null,
  submit: null,
  approve: null
}

// CONTRACT-v1 §5: the v1 status reached names the event.
const V1_NAMES: Readonly<Record<EventKind, EventType | null>> = {
  ...V2_NAMES,
  decline: "transaction.refused",
  cancel: "transaction.cancelled",
  refund_partial: "transaction.refunded"
}

/** The event name a receiver of `origin` gets for `kind`; null when that interface has no event for it. */
export const eventName = (origin: Origin, kind: EventKind): EventType | null =>
  (origin === "v1" ? V1_NAMES : V2_NAMES)[kind]

/**
 * The transaction as it was when the event happened, in the core's words. The outbox stores this;
 * each interface builds its own payload from it when the delivery is made.
 */
export const EventSnapshot = Schema.Struct({
  id: Schema.String,
  orderId: Schema.NullOr(Schema.String),
  method: PaymentMethod,
  amount: Schema.Number,
  amountTotal: Schema.Number,
  status: TransactionStatus,
  paidAt: Schema.NullOr(Schema.String),
  refundedAmount: Schema.Number,
  declineCode: Schema.NullOr(Schema.String),
  metadata: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  /** A boleto's payment and its parts (docs/boleto.md); absent otherwise. */
  payment: Schema.optional(BoletoPayment)
})
export type EventSnapshot = typeof EventSnapshot.Type

/** An event as the outbox recorded it. */
export interface StoredEvent {
  readonly name: string
  readonly kind: EventKind
  readonly origin: Origin
  readonly snapshot: EventSnapshot
  readonly createdAt: Date
}

/**
 * An event whose body was fixed when it was recorded: withdrawals' and the test event (their shape is
 * fixed by CONTRACT-v1 §5 and docs/webhooks.md), and events recorded before 0004. The body is stored
 * without `livemode`: EventPayloads adds a live tenant's when it is sent or shown, as for any other event.
 */
export interface FrozenEvent {
  readonly _tag: "Frozen"
  readonly body: string
}

/** Events are listed for this many days (issue 20 §2), the delivery history's retention. */
export const EVENT_LIST_DAYS = 30

/**
 * An event of the account as `GET /api/events` shows it: `payload` is the body its webhook delivery
 * sends (built the same way, EventPayloads), whether or not the account had a webhook.
 */
export class EventRecord extends Schema.Class<EventRecord>("Event")({
  id: Schema.UUID,
  type: Schema.String,
  transactionId: Schema.NullOr(Schema.UUID),
  createdAt: Schema.Date,
  payload: Schema.Unknown
}) {}
