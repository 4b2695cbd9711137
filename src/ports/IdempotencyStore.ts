import type { AccountId } from "../domain/ids.ts"
import { Context, type Effect } from "effect"

export interface StoredResponse {
  readonly status: number
  readonly body: string
}

export type Claim =
  /** This request owns the key now; `resourceId` is the id its resource must take. */
  | { readonly _tag: "Acquired"; readonly resourceId: string }
  | { readonly _tag: "Completed"; readonly response: StoredResponse }
  | { readonly _tag: "InFlight" }
  | { readonly _tag: "Mismatch" }

/** Idempotency records (CONTRACT §6), scoped by account, alive 24 hours. */
export class IdempotencyStore extends Context.Tag("IdempotencyStore")<
  IdempotencyStore,
  {
    /**
     * Claims the key for a request with this fingerprint. A claim whose owner died (lease expired)
     * is taken over with the same resource id, so the retry resumes rather than charging again.
     */
    readonly claim: (
      accountId: AccountId,
      key: string,
      fingerprint: string,
      newResourceId: string
    ) => Effect.Effect<Claim>
    /**
     * Stores the response and ends the lease. Inside a `Transactional` unit of work it commits or
     * rolls back with that work (the charge and its stored reply are one fact).
     */
    readonly complete: (accountId: AccountId, key: string, response: StoredResponse) => Effect.Effect<void>
    /** Gives the key up without a stored response (the request failed before doing anything). */
    readonly forget: (accountId: AccountId, key: string) => Effect.Effect<void>
    /** Ends the lease now (a defect): the next retry takes over at once, with the same resource id. */
    readonly release: (accountId: AccountId, key: string) => Effect.Effect<void>
    readonly deleteOlderThan: (hours: number) => Effect.Effect<number>
  }
>() {}
