import { Context, type Effect, type Option } from "effect"
import type { Principal } from "../domain/account.ts"

export interface RateLimitDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Milliseconds until a slot frees (when refused) or until the oldest counted request leaves the window. */
  readonly resetMs: number
}

export type Admission =
  /** The key may not call this route: no rate-limit slot was taken (CONTRACT §5: 403 before 429). */
  | { readonly _tag: "Forbidden"; readonly principal: Principal }
  | { readonly _tag: "Admitted"; readonly principal: Principal; readonly decision: RateLimitDecision }

/**
 * Who is calling and whether they may: the active key with this digest, whether its scopes grant
 * `neededScope`, and a slot of its rolling rate-limit window shared by every API process (taken in its
 * own database transaction). One round trip for the three (issue 10). None for an unknown, revoked or
 * rotated-away key.
 */
export class KeyAdmission extends Context.Tag("KeyAdmission")<
  KeyAdmission,
  {
    readonly admit: (digest: Uint8Array, neededScope: string) => Effect.Effect<Option.Option<Admission>>
  }
>() {}
