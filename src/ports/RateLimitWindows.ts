import { Context, type Effect } from "effect"

/**
 * The rolling windows that rate-limit API keys (CONTRACT §5) and payment-link visits: each keeps its
 * accepted requests of the last minute, and drops the older ones only when it is next used.
 */
export class RateLimitWindows extends Context.Tag("RateLimitWindows")<
  RateLimitWindows,
  {
    /**
     * Drops the requests that have left their window from every window not used since (a revoked or idle
     * key, a link visited once), each under the lock its requests take, so that no window counts one
     * request more or less than it holds. The requests dropped.
     */
    readonly prune: () => Effect.Effect<number>
  }
>() {}
