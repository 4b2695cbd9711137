import type { AccountId } from "../domain/ids.ts"
import { Context, type Effect } from "effect"
import type { EventKind } from "../domain/events.ts"
import type { TransactionRecord } from "../domain/transaction.ts"

/**
 * Records an event in the database transaction of the state change that causes it; delivery happens
 * later, from the job queue. A rolled-back change therefore sends nothing and a committed one always sends.
 * What is stored is the neutral snapshot: the payload is built per interface at delivery (EventPayloads).
 */
export class Outbox extends Context.Tag("Outbox")<
  Outbox,
  {
    readonly emit: (accountId: AccountId, kind: EventKind, transaction: TransactionRecord) => Effect.Effect<void>
    /** An event whose body is fixed when it happens (withdrawals, which only /public/v1 has). */
    readonly emitFrozen: (accountId: AccountId, name: string, body: unknown) => Effect.Effect<void>
  }
>() {}
