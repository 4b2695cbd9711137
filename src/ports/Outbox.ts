import { Context, type Effect } from "effect"
import type { EventType, TransactionSnapshot } from "../domain/events.ts"

/**
 * Records an event in the database transaction of the state change that causes it; delivery happens
 * later, from the job queue. A rolled-back change therefore sends nothing and a committed one always sends.
 */
export class Outbox extends Context.Tag("Outbox")<
  Outbox,
  {
    readonly emit: (accountId: string, type: EventType, transaction: TransactionSnapshot) => Effect.Effect<void>
  }
>() {}
