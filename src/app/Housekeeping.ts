import { Clock, Effect } from "effect"
import { AntifraudSignals } from "../ports/Antifraud.ts"
import { IdempotencyStore } from "../ports/IdempotencyStore.ts"
import { WebhookRepo } from "../ports/WebhookRepo.ts"
import { RequestLog } from "../ports/RequestLog.ts"
import { RateLimitWindows } from "../ports/RateLimitWindows.ts"
import { AppConfig } from "../config/AppConfig.ts"
import { fn } from "../spans.ts"

/** Idempotency records live 24 hours (CONTRACT §6); delivery history is kept 30 days (docs/webhooks.md). */
export const IDEMPOTENCY_HOURS = 24
export const DELIVERY_HISTORY_DAYS = 30

export class Housekeeping extends Effect.Service<Housekeeping>()("Housekeeping", {
  effect: Effect.gen(function* () {
    const idempotency = yield* IdempotencyStore
    const webhooks = yield* WebhookRepo
    const antifraud = yield* AntifraudSignals
    const requestLog = yield* RequestLog
    const windows = yield* RateLimitWindows
    const config = yield* AppConfig
    return {
      cleanup: fn("Housekeeping.cleanup")(function* () {
        const keys = yield* idempotency.deleteOlderThan(IDEMPOTENCY_HOURS)
        const deliveries = yield* webhooks.deleteHistoryOlderThan(DELIVERY_HISTORY_DAYS)
        // Velocity counters of windows that have ended count nothing any more (CONTRACT-v1 §9).
        const counters = yield* antifraud.deleteExpired(new Date(yield* Clock.currentTimeMillis))
        // The request log is kept REQUEST_LOG_RETENTION_DAYS (docs/webhooks.md "Request log").
        const requests = yield* requestLog.deleteOlderThan(config.requestLogRetentionDays)
        // Rate-limit windows left unused keep their last minute until pruned (docs/operations.md "Housekeeping").
        const hits = yield* windows.prune()
        yield* Effect.logInfo(
          `cleanup: ${keys} idempotency records, ${deliveries} deliveries, ${counters} antifraud counters, ` +
            `${requests} logged requests, ${hits} expired rate-limit hits removed`
        )
      })
    }
  })
}) {}
