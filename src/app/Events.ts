import type { AccountId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { NotFound } from "../domain/errors.ts"
import { EventRecord } from "../domain/events.ts"
import { EventPayloads } from "../ports/EventPayloads.ts"
import { Tenancy } from "../ports/Modes.ts"
import { type EventFilter, EventLog, type LoggedEvent } from "../ports/EventLog.ts"
import type { ListKey } from "../ports/Page.ts"
import { fn } from "../spans.ts"

/**
 * The account's events (issue 20 §2, docs/webhooks.md "Events"), each with the payload its webhook
 * delivery sends: built by the same EventPayloads from the same stored event, so the two never differ.
 */
export class Events extends Effect.Service<Events>()("Events", {
  effect: Effect.gen(function* () {
    const log = yield* EventLog
    const payloads = yield* EventPayloads
    const tenancy = yield* Tenancy
    // The tenant's mode decides `livemode` in the payload, as it does for the delivered body (Deliveries).
    const present = (live: boolean) => (event: LoggedEvent) =>
      EventRecord.make(
        {
          id: event.id,
          type: event.type,
          transactionId: event.transactionId,
          createdAt: event.createdAt,
          payload: JSON.parse(payloads.render(event.stored, live))
        },
        { disableValidation: true }
      )
    return {
      list: fn("Events.list")(function* (
        accountId: AccountId,
        filter: EventFilter,
        limit: number,
        after: ListKey | undefined
      ) {
        const page = yield* log.list(accountId, filter, limit, after)
        const live = (yield* tenancy.modeOf(accountId)) === "live"
        return { events: page.rows.map(present(live)), next: page.next }
      }),
      get: fn("Events.get")(function* (accountId: AccountId, eventId: string) {
        const found = yield* log.find(accountId, eventId)
        if (Option.isNone(found)) return yield* new NotFound({ message: "event not found" })
        return present((yield* tenancy.modeOf(accountId)) === "live")(found.value)
      })
    }
  })
}) {}
