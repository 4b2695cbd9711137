import { Context, type Effect, type Option } from "effect"
import type { Principal } from "../domain/account.ts"
import type { OrderId } from "../domain/ids.ts"
import type { Claim } from "./IdempotencyStore.ts"

export interface RateLimitDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Milliseconds until a slot frees (when refused) or until the oldest counted request leaves the window. */
  readonly resetMs: number
}

/** `RateLimit-Reset` and `Retry-After`: whole seconds until the reset, at least one. */
export const secondsUntilReset = (decision: RateLimitDecision) => Math.max(1, Math.ceil(decision.resetMs / 1000))

/** An idempotency key to claim with the admission (CONTRACT §6), as `IdempotencyStore.claim` takes it. */
export interface ClaimRequest {
  readonly key: string
  readonly fingerprint: string
  readonly newResourceId: string
}

export type Admission =
  /** The key may not call this route: no rate-limit slot was taken (CONTRACT §5: 403 before 429). */
  | { readonly _tag: "Forbidden"; readonly principal: Principal }
  | {
      readonly _tag: "Admitted"
      readonly principal: Principal
      readonly decision: RateLimitDecision
      /** The claim asked for, made when the request got its slot; absent otherwise. */
      readonly claim: Claim | undefined
    }

/**
 * A record the request reads by its id, when its route names it (annotated `ReadsAhead`): the customer of
 * `GET /api/customers/{id}`, the order of `GET /api/orders/{id}`, the transaction of
 * `GET /api/transactions/{id}` and `GET /public/v1/transactions/{hash}`.
 */
export interface RecordToRead {
  readonly kind: "customer" | "order" | "transaction"
  readonly id: string
}

/**
 * Who is calling and whether they may: the active key with this digest, whether its scopes grant
 * `neededScope`, and a slot of its rolling rate-limit window shared by every API process (taken in its
 * own database transaction); for a request with an idempotency key, that key's claim as well. One round
 * trip for all of it (issue 10). None for an unknown, revoked or rotated-away key. An adapter may admit
 * concurrent requests of one key together, so long as each gets the decision it would have had alone
 * in some order of them (docs/performance.md "Admissions in batches").
 *
 * `order`: the order the request pays, when its route names one (annotated `PaysOrder`). Once the
 * request is admitted, an adapter may read it in the same round trip, scoped by the key's account, for
 * the `OrderRepo.findToCharge` the charge makes next before any provider is asked (issue 22,
 * docs/performance.md "The order read with the admission"); the charge's write still expects the order
 * unchanged under its row lock.
 *
 * `read`: likewise, the record the request reads next, for its repository's read by that id (the same
 * account, once); the adapter may read it with a request that has neither a claim nor an order.
 */
export class KeyAdmission extends Context.Tag("KeyAdmission")<
  KeyAdmission,
  {
    readonly admit: (
      digest: Uint8Array,
      neededScope: string,
      claim?: ClaimRequest,
      order?: OrderId,
      read?: RecordToRead
    ) => Effect.Effect<Option.Option<Admission>>
  }
>() {}
