import type { AccountId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { NotFound } from "../domain/errors.ts"
import { EventRecord } from "../domain/events.ts"
import { EventPayloads } from "../ports/EventPayloads.ts"
import { type EventFilter, EventLog, type LoggedEvent } from "../ports/EventLog.ts"
import type { ListKey } from "../ports/Page.ts"
import { fn } from "../spans.ts"

/**
 * The account's events (issue 20 §2, docs/webhooks.md "Events"), each with the payload its webhook
 * delivery sends: built by the same EventPayloads from the same stored snapshot, so the two never differ.
 */
export class Events extends Effect.Service<Events>()("Events", {
  effect: Effect.gen(function* () {
    const log = yield* EventLog
    const payloads = yield* EventPayloads
    const present = (event: LoggedEvent) =>
      EventRecord.make(
        {
          id: event.id,
          type: event.type,
          transactionId: event.transactionId,
          createdAt: event.createdAt,
          payload: JSON.parse("_tag" in event.stored ? event.stored.body : payloads.render(event.stored))
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
        return { events: page.rows.map(present), next: page.next }
      }),
      get: fn("Events.get")(function* (accountId: AccountId, eventId: string) {
        return yield* Option.match(yield* log.find(accountId, eventId), {
          onNone: () => Effect.fail(new NotFound({ message: "event not found" })),
          onSome: (event) => Effect.succeed(present(event))
        })
      })
    }
  })
}) {}
