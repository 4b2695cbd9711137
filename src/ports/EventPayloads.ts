import { Context } from "effect"
import type { StoredEvent } from "../domain/events.ts"

/**
 * Builds the body a webhook receiver gets for a stored event, in the words of the interface that
 * created the transaction. Deterministic: every retry of a delivery sends the same bytes.
 */
export class EventPayloads extends Context.Tag("EventPayloads")<
  EventPayloads,
  {
    /** `live`: the event is of a live tenant, and its body says `livemode: true` (issue 24 §1). */
    readonly render: (event: StoredEvent, live: boolean) => string
  }
>() {}
