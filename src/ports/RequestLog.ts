import type { AccountId } from "../domain/ids.ts"
import { Context, type Effect } from "effect"
import type { ListKey } from "./Page.ts"

/** One API-key request as the request log keeps it (docs/webhooks.md "Request log"). */
export interface RequestEntry {
  readonly accountId: AccountId
  readonly keyId: string
  readonly method: string
  /** Path and query, credentials in the query redacted. */
  readonly path: string
  readonly status: number
  readonly latencyMs: number
  readonly requestId: string
  readonly idempotencyKey: string | null
  /** Redacted (redact.ts); null without a body. */
  readonly body: string | null
  readonly at: Date
}

export interface LoggedRequest extends RequestEntry {
  readonly id: string
}

export class RequestLog extends Context.Tag("RequestLog")<
  RequestLog,
  {
    /**
     * Queues the entry: written with others in one statement shortly after, never on the request's own
     * round trip. Never fails; entries past the buffer's bound are dropped (and counted in the log).
     */
    readonly record: (entry: RequestEntry) => Effect.Effect<void>
    /** The account's requests, newest first, optionally of one key. */
    readonly list: (
      accountId: AccountId,
      filter: { readonly keyId?: string | undefined },
      limit: number,
      after: ListKey | undefined
    ) => Effect.Effect<{ readonly rows: ReadonlyArray<LoggedRequest>; readonly next: ListKey | null }>
    /** Writes what is queued now (shutdown, tests). */
    readonly flush: Effect.Effect<void>
    readonly deleteOlderThan: (days: number) => Effect.Effect<number>
  }
>() {}
