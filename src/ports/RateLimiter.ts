import { Context, type Effect } from "effect"

export interface RateLimitDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Milliseconds until a slot frees (when refused) or until the oldest counted request leaves the window. */
  readonly resetMs: number
}

/** A rolling-window limiter shared by every API process. */
export class RateLimiter extends Context.Tag("RateLimiter")<
  RateLimiter,
  {
    readonly take: (keyId: string, limit: number) => Effect.Effect<RateLimitDecision>
  }
>() {}
