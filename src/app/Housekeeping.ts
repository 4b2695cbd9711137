import { Effect } from "effect"
import { IdempotencyStore } from "../ports/IdempotencyStore.ts"
import { WebhookRepo } from "../ports/WebhookRepo.ts"

/** Idempotency records live 24 hours (CONTRACT §6); delivery history is kept 30 days (README). */
export const IDEMPOTENCY_HOURS = 24
export const DELIVERY_HISTORY_DAYS = 30

export class Housekeeping extends Effect.Service<Housekeeping>()("Housekeeping", {
  effect: Effect.gen(function* () {
    const idempotency = yield* IdempotencyStore
    const webhooks = yield* WebhookRepo
    return {
      cleanup: Effect.fn("Housekeeping.cleanup")(function* () {
        const keys = yield* idempotency.deleteOlderThan(IDEMPOTENCY_HOURS)
        const deliveries = yield* webhooks.deleteHistoryOlderThan(DELIVERY_HISTORY_DAYS)
        yield* Effect.logInfo(`cleanup: ${keys} idempotency records, ${deliveries} deliveries removed`)
      })
    }
  })
}) {}
