import type { AccountId } from "../domain/ids.ts"
import { Context, type Effect, type Option } from "effect"
import type { FrozenEvent, StoredEvent } from "../domain/events.ts"
import type { ListKey } from "./Page.ts"

/** An event as the outbox recorded it, with its identity (a snapshot, or a frozen body: FrozenEvent). */
export interface LoggedEvent {
  readonly id: string
  readonly type: string
  readonly transactionId: string | null
  readonly createdAt: Date
  readonly stored: StoredEvent | FrozenEvent
}

export interface EventFilter {
  readonly type?: string | undefined
  readonly transactionId?: string | undefined
  /** Inclusive. */
  readonly createdFrom?: Date | undefined
  /** Exclusive. */
  readonly createdBefore?: Date | undefined
}

/** The account's events, newest first (issue 20 §2; docs/webhooks.md "Events"). */
export class EventLog extends Context.Tag("EventLog")<
  EventLog,
  {
    /** Up to `limit` events after `after` (a seek on (account_id, created_at desc, id desc)). */
    readonly list: (
      accountId: AccountId,
      filter: EventFilter,
      limit: number,
      after: ListKey | undefined
    ) => Effect.Effect<{ readonly rows: ReadonlyArray<LoggedEvent>; readonly next: ListKey | null }>
    readonly find: (accountId: AccountId, eventId: string) => Effect.Effect<Option.Option<LoggedEvent>>
  }
>() {}
