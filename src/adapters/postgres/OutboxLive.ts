import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { v2EventPayload } from "../../domain/events.ts"
import { Ids } from "../../ports/Ids.ts"
import { Outbox } from "../../ports/Outbox.ts"

/**
 * Writes the event and, when the account has a webhook, its delivery record and one graphile-worker
 * job, all on the caller's connection: inside `Transactional.run` they commit or roll back with the
 * state change. Accounts without a webhook cost no job at all.
 */
export const OutboxLive = Layer.effect(
  Outbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids
    return Outbox.of({
      emit: (accountId, type, transaction) =>
        Effect.gen(function* () {
          const eventId = yield* ids.next
          const deliveryId = yield* ids.next
          const payload = v2EventPayload(type, transaction, new Date())
          yield* sql`
            with event as (
              insert into events (id, account_id, type, transaction_id, payload)
              values (${eventId}, ${accountId}, ${type}, ${transaction.id}, ${JSON.stringify(payload)}::jsonb)
            ), delivery as (
              insert into webhook_deliveries (id, account_id, event_id, event, url, status)
              select ${deliveryId}, w.account_id, ${eventId}, ${type}, w.url, 'PENDING'
              from webhooks w where w.account_id = ${accountId}
              returning id
            )
            select graphile_worker.add_job('deliver_webhook', json_build_object('deliveryId', delivery.id),
                                           job_key := delivery.id::text, max_attempts := 25)
            from delivery`
        }).pipe(Effect.orDie, Effect.withSpan("Outbox.emit", { attributes: { type } }))
    })
  })
)
