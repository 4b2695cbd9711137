import { Schema } from "effect"
import { type EventKind, EventSnapshot, type FrozenEvent, type StoredEvent } from "../../domain/events.ts"
import { Origin } from "../../domain/transaction.ts"

/**
 * The columns of `events` an event's body is made from, selected as `e.kind, e.origin, e.snapshot,
 * e.payload::text as frozen`: the outbox's snapshot (0004 on) or a body frozen when recorded.
 */
export const StoredEventFields = {
  kind: Schema.NullOr(Schema.String),
  origin: Schema.NullOr(Origin),
  snapshot: Schema.NullOr(EventSnapshot),
  frozen: Schema.NullOr(Schema.String)
}

/**
 * The event as recorded, for EventPayloads to render: one reading for the delivery job (WebhookRepoLive),
 * the events list (EventLogLive) and the dashboard's timeline (DashboardReadsLive), so they show one body.
 */
export const storedEvent = (
  row: Schema.Struct.Type<typeof StoredEventFields>,
  name: string,
  createdAt: Date
): StoredEvent | FrozenEvent =>
  row.snapshot !== null && row.kind !== null && row.origin !== null
    ? { name, kind: row.kind as EventKind, origin: row.origin, snapshot: row.snapshot, createdAt }
    : { _tag: "Frozen", body: row.frozen ?? "{}" }
