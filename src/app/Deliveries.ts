import { Cause, Clock, Effect, Option, Random } from "effect"
import { Metrics } from "../ports/Metrics.ts"
import { AppConfig } from "../config/AppConfig.ts"
import { nextRetryDelayMs } from "../domain/webhook.ts"
import { Tenancy } from "../ports/Modes.ts"
import { EventPayloads } from "../ports/EventPayloads.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { Transactional } from "../ports/Transactional.ts"
import { WebhookRepo } from "../ports/WebhookRepo.ts"
import { WebhookSender } from "../ports/WebhookSender.ts"
import { fn } from "../spans.ts"

/**
 * One delivery attempt (the deliver_webhook job): POST the event, in the words of the interface that
 * created its transaction, to the account's current URL, then record the outcome and that URL and, unless
 * it succeeded or the schedule is spent, schedule the next attempt — in one database transaction.
 */
export class Deliveries extends Effect.Service<Deliveries>()("Deliveries", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const repo = yield* WebhookRepo
    const sender = yield* WebhookSender
    const scheduler = yield* JobScheduler
    const tx = yield* Transactional
    const metrics = yield* Metrics
    const payloads = yield* EventPayloads
    const tenancy = yield* Tenancy

    return {
      attempt: fn("Deliveries.attempt")(function* (deliveryId: string) {
        const found = yield* repo.target(deliveryId)
        // Already delivered, dropped with its webhook, or finished by a manual retry: nothing to do.
        if (Option.isNone(found) || found.value.status !== "PENDING") return
        const target = found.value
        const attemptedAt = new Date(yield* Clock.currentTimeMillis)
        const attempts = target.attempts + 1
        if (Option.isNone(target.webhook)) {
          yield* repo.recordAttempt(deliveryId, {
            status: "FAILED",
            attempts: target.attempts,
            httpStatus: null,
            attemptedAt,
            nextRetryAt: null,
            lastError: "webhook deleted"
          })
          return
        }
        // Frozen bodies too: a live tenant's withdrawal or test event says `livemode: true` (EventPayloads).
        const body = payloads.render(target.stored, (yield* tenancy.modeOf(target.accountId)) === "live")
        const url = target.webhook.value.url
        const outcome = yield* sender.send({
          url,
          deliveryId,
          timestamp: Math.floor(attemptedAt.getTime() / 1000),
          body,
          secret: target.webhook.value.secret,
          previousSecret: target.webhook.value.previousSecret ?? undefined
        })
        // Where it was sent, what was sent and what came back, kept on the record (docs/webhooks.md
        // "Deliveries"): the URL is the webhook's now, which a replaced URL has changed since the delivery began.
        const exchange = {
          url,
          requestHeaders: outcome.requestHeaders ?? null,
          requestBody: body,
          responseBody: outcome.responseBody ?? null,
          latencyMs: outcome.durationMs
        }
        // The receiver's answer is untrusted text (the sender keeps it storable): should the database still
        // refuse the record, the attempt is recorded without it. Each delivery keeps its last attempt and is
        // retried on WEBHOOK_RETRY_SCHEDULE (docs/webhooks.md "Deliveries"); a failed job is instead retried by
        // graphile-worker, up to 25 POSTs on its own back-off and none recorded. Only a database out of reach
        // fails both, and leaves the attempt to that retry.
        const recorded = <A>(record: (answer: string | null) => Effect.Effect<A>) =>
          Effect.catchAllDefect(record(exchange.responseBody), (defect) =>
            Effect.logWarning("webhook attempt recorded without the response body", Cause.die(defect)).pipe(
              Effect.zipRight(record(null))
            )
          )
        metrics.webhookDeliveries.inc({ event: target.event, outcome: outcome._tag.toLowerCase() })
        metrics.webhookDuration.observe({ outcome: outcome._tag.toLowerCase() }, outcome.durationMs / 1000)
        if (outcome._tag === "Delivered") {
          metrics.webhookAttemptsUntilSuccess.observe(attempts)
          yield* recorded((responseBody) =>
            repo.recordAttempt(deliveryId, {
              status: "SUCCESS",
              attempts,
              httpStatus: 200,
              attemptedAt,
              nextRetryAt: null,
              lastError: null,
              ...exchange,
              responseBody
            })
          )
          return
        }
        // The schedule counts from its start, which a manual resend moves to the attempts made by then, so a
        // resend retries on the whole schedule while `attempts` keeps counting them all (docs/webhooks.md).
        const delay = nextRetryDelayMs(config.webhookRetrySchedule, attempts - target.scheduleFrom, yield* Random.next)
        const nextRetryAt = delay === undefined ? null : new Date(attemptedAt.getTime() + delay)
        // A refused record rolls its transaction back, the next job included: recorded again, whole.
        yield* recorded((responseBody) =>
          tx.run(
            Effect.gen(function* () {
              // The webhook may have been deleted while this attempt was in flight: the delivery is
              // then dropped (no longer PENDING) and must not come back.
              const pending = yield* repo.recordAttempt(deliveryId, {
                status: nextRetryAt === null ? "FAILED" : "PENDING",
                attempts,
                httpStatus: outcome._tag === "Rejected" ? outcome.httpStatus : null,
                attemptedAt,
                nextRetryAt,
                lastError: outcome._tag === "Rejected" ? `HTTP ${outcome.httpStatus}` : outcome.reason,
                ...exchange,
                responseBody
              })
              if (pending && nextRetryAt !== null) yield* scheduler.deliverAt(deliveryId, nextRetryAt)
            })
          )
        )
      })
    }
  })
}) {}
