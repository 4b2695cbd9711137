import type { AccountId } from "../domain/ids.ts"
import { Clock, Effect, Option } from "effect"
import { NotFound, ValidationFailed } from "../domain/errors.ts"
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  type DeliveryStatus,
  MAX_ROTATION_OVERLAP_SECONDS,
  TEST_EVENT
} from "../domain/webhook.ts"
import { Ids } from "../ports/Ids.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { Transactional } from "../ports/Transactional.ts"
import { WebhookRepo } from "../ports/WebhookRepo.ts"
import { WebhookSender } from "../ports/WebhookSender.ts"
import { fn } from "../spans.ts"

/** Webhook management of interface-v2 and CONTRACT §8: one URL per account. */
export class Webhooks extends Effect.Service<Webhooks>()("Webhooks", {
  effect: Effect.gen(function* () {
    const repo = yield* WebhookRepo
    const sender = yield* WebhookSender
    const scheduler = yield* JobScheduler
    const tx = yield* Transactional
    const ids = yield* Ids
    const notFound = () => new NotFound({ message: "no webhook is registered" })

    return {
      /** The URL must be public https (unless WEBHOOK_ALLOW_PRIVATE_URLS); checked again at every delivery. */
      upsert: fn("Webhooks.upsert")(function* (accountId: AccountId, url: string) {
        yield* sender.vet(url).pipe(Effect.mapError((refused) => ValidationFailed.one("url", refused.reason)))
        return yield* repo.upsert(accountId, url, yield* sender.newSecret)
      }),
      get: fn("Webhooks.get")(function* (accountId: AccountId) {
        return yield* Option.match(yield* repo.find(accountId), {
          onNone: () => Effect.fail(notFound()),
          onSome: Effect.succeed
        })
      }),
      remove: fn("Webhooks.remove")(function* (accountId: AccountId) {
        if (!(yield* repo.remove(accountId))) return yield* notFound()
      }),
      deliveries: (
        accountId: AccountId,
        filter: { readonly status?: DeliveryStatus | undefined; readonly event?: string | undefined }
      ) => repo.deliveries(accountId, filter),
      retry: fn("Webhooks.retry")(function* (accountId: AccountId, deliveryId: string) {
        const now = new Date(yield* Clock.currentTimeMillis)
        return yield* tx.run(
          Effect.gen(function* () {
            const delivery = yield* repo.markPending(accountId, deliveryId)
            if (Option.isNone(delivery)) return yield* new NotFound({ message: "delivery not found" })
            yield* scheduler.deliverAt(deliveryId, now)
            return delivery.value
          })
        )
      }),
      /** One delivery with its last request and response (docs/webhooks.md "Deliveries"). */
      delivery: fn("Webhooks.delivery")(function* (accountId: AccountId, deliveryId: string) {
        return yield* Option.match(yield* repo.deliveryDetail(accountId, deliveryId), {
          onNone: () => Effect.fail(new NotFound({ message: "delivery not found" })),
          onSome: Effect.succeed
        })
      }),
      /** Every FAILED delivery created since `since` is attempted again, each keeping its `webhook-id`. */
      resendFailed: fn("Webhooks.resendFailed")(function* (accountId: AccountId, since: Date) {
        return { resent: yield* repo.resendFailed(accountId, since) }
      }),
      /**
       * A new secret; the previous one keeps signing beside it for `overlapSeconds` (default 24 h, at most
       * 7 days; 0 ends it at once), so receivers can switch without losing a delivery.
       */
      rotateSecret: fn("Webhooks.rotateSecret")(function* (accountId: AccountId, overlapSeconds: number | undefined) {
        const overlap = overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS
        if (!Number.isInteger(overlap) || overlap < 0 || overlap > MAX_ROTATION_OVERLAP_SECONDS)
          return yield* ValidationFailed.one(
            "overlapSeconds",
            `overlapSeconds must be an integer from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}`
          )
        const until = new Date((yield* Clock.currentTimeMillis) + overlap * 1000)
        return yield* Option.match(yield* repo.rotateSecret(accountId, yield* sender.newSecret, until), {
          onNone: () => Effect.fail(notFound()),
          onSome: Effect.succeed
        })
      }),
      /** A `webhook.test` event delivered like any other (signed, retried, listed); its delivery. */
      sendTest: fn("Webhooks.sendTest")(function* (accountId: AccountId) {
        const eventId = yield* ids.next
        const deliveryId = yield* ids.next
        const createdAt = new Date(yield* Clock.currentTimeMillis)
        const body = {
          event: TEST_EVENT,
          created_at: createdAt.toISOString(),
          data: { message: "a test event sent from the webhook settings; nothing happened to any transaction" }
        }
        return yield* Option.match(yield* repo.recordTestEvent(accountId, { eventId, deliveryId }, TEST_EVENT, body), {
          onNone: () => Effect.fail(notFound()),
          onSome: Effect.succeed
        })
      })
    }
  })
}) {}
