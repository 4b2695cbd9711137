import type { AccountId } from "../domain/ids.ts"
import { Clock, Effect, Option } from "effect"
import { NotFound, ValidationFailed } from "../domain/errors.ts"
import type { DeliveryStatus } from "../domain/webhook.ts"
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
      })
    }
  })
}) {}
