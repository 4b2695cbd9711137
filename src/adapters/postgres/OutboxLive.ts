import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { type EventSnapshot, eventName } from "../../domain/events.ts"
import type { TransactionRecord } from "../../domain/transaction.ts"
import { Ids } from "../../ports/Ids.ts"
import { Outbox } from "../../ports/Outbox.ts"
import { deferWrite } from "./deferred.ts"
import { currentExportedSpan, withSpan } from "../../spans.ts"

const snapshotOf = (t: TransactionRecord): EventSnapshot => ({
  id: t.id,
  orderId: t.orderId,
  method: t.method,
  amount: t.amount,
  amountTotal: t.amountTotal,
  status: t.status,
  paidAt: t.paidAt === null ? null : t.paidAt.toISOString(),
  refundedAmount: t.refundedAmount,
  declineCode: t.declineCode,
  metadata: t.metadata,
  ...(t.details.payment === undefined ? {} : { payment: t.details.payment })
})

/**
 * Writes the event (a neutral snapshot and the name its interface gives it) and, when the account
 * has a webhook, its delivery record and one graphile-worker job, all on the caller's connection:
 * inside `Transactional.run` they commit or roll back with the state change. Accounts without a
 * webhook cost no job at all; a move that has no event in the transaction's interface writes nothing.
 */
export const OutboxLive = Layer.effect(
  Outbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids
    /**
     * The event `insert` makes (given its id), and when the account has a webhook its delivery record
     * and one job, in one statement (with the transaction's other deferred writes: deferred.ts). The
     * delivery job joins the trace of the change that caused it (W3C traceparent).
     */
    const record = (accountId: string, name: string, insert: (eventId: string) => Statement.Fragment) =>
      Effect.gen(function* () {
        const span = yield* currentExportedSpan
        const traceparent = Option.match(span, { onNone: () => null, onSome: (s) => `00-${s.traceId}-${s.spanId}-01` })
        const eventId = yield* ids.next
        const deliveryId = yield* ids.next
        yield* deferWrite(sql, (as) => ({
          ctes: [
            [as("event"), insert(eventId)],
            [
              as("delivery"),
              sql`insert into webhook_deliveries (id, account_id, event_id, event, url, status)
                  select ${deliveryId}, w.account_id, ${eventId}, ${name}, w.url, 'PENDING'
                  from webhooks w where w.account_id = ${accountId}
                  returning id`
            ]
          ],
          select: [
            sql`(select count(graphile_worker.add_job('deliver_webhook',
                                    json_build_object('deliveryId', d.id, 'traceparent', ${traceparent}::text),
                                    job_key := d.id::text, max_attempts := 25))
                 from ${sql.literal(as("delivery"))} d)`
          ]
        }))
      })
    return Outbox.of({
      emitFrozen: (accountId, name, body) =>
        record(
          accountId,
          name,
          (eventId) => sql`
            insert into events (id, account_id, type, payload)
            values (${eventId}, ${accountId}, ${name}, ${JSON.stringify(body)}::jsonb)`
        ).pipe(withSpan("Outbox.emitFrozen", { attributes: { name } })),
      emit: (accountId, kind, transaction) =>
        Effect.gen(function* () {
          const name = eventName(transaction.origin, kind)
          if (name === null) return
          yield* record(
            accountId,
            name,
            (eventId) => sql`
              insert into events (id, account_id, type, kind, origin, transaction_id, snapshot)
              values (${eventId}, ${accountId}, ${name}, ${kind}, ${transaction.origin}, ${transaction.id},
                      ${JSON.stringify(snapshotOf(transaction))}::jsonb)`
          )
        }).pipe(Effect.orDie, withSpan("Outbox.emit", { attributes: { kind } }))
    })
  })
)
