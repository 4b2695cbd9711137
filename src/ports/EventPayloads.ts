import { Context } from "effect"
import type { FrozenEvent, StoredEvent } from "../domain/events.ts"

/**
 * Builds the body a webhook receiver gets for a stored event, in the words of the interface that
 * created the transaction, or the body frozen when it was recorded. Deterministic: every retry of a
 * delivery sends the same bytes. The one place a body is made: the delivery job, the events list and the
 * dashboard's timeline all show what it makes (docs/webhooks.md "Events").
 */
export class EventPayloads extends Context.Tag("EventPayloads")<
  EventPayloads,
  {
    /** `live`: the event is of a live tenant, and its body says `livemode: true` (issue 24 §1). */
    readonly render: (event: StoredEvent | FrozenEvent, live: boolean) => string
  }
>() {}
