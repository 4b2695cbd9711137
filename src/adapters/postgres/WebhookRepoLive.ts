import { AccountId } from "../../domain/ids.ts"
import { SqlClient } from "@effect/sql"
import { KEYSET_AT, keysetStream } from "./keyset.ts"
import { traced } from "./traced.ts"
import { Effect, Layer, Option, Schema } from "effect"
import { Delivery, DeliveryDetail, DeliveryStatus, RotatedWebhook, Webhook } from "../../domain/webhook.ts"
import { type AttemptRecord, type DeliveryTarget, WebhookRepo } from "../../ports/WebhookRepo.ts"
import { batched } from "./batched.ts"
import { storedEvent, StoredEventFields } from "./storedEvent.ts"
import { withSpan } from "../../spans.ts"

const TargetRow = Schema.Struct({
  id: Schema.String,
  accountId: AccountId,
  event: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Number,
  scheduleFrom: Schema.Number,
  ...StoredEventFields,
  createdAt: Schema.DateFromSelf,
  url: Schema.NullOr(Schema.String),
  secret: Schema.NullOr(Schema.String),
  previousSecret: Schema.NullOr(Schema.String)
})

interface WebhookRow {
  readonly url: string
  readonly secret: string
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly created?: boolean
}

interface DeliveryRow {
  readonly id: string
  readonly event: string
  readonly status: DeliveryStatus
  readonly httpStatus: number | null
  readonly attemptedAt: Date | null
  readonly nextRetryAt: Date | null
  readonly attempts: number
  readonly createdAt: Date
}

const toWebhook = (row: WebhookRow) =>
  Webhook.make(
    { url: row.url, secret: row.secret, createdAt: row.createdAt, updatedAt: row.updatedAt },
    { disableValidation: true }
  )

const toDelivery = (row: DeliveryRow) =>
  Delivery.make(
    {
      deliveryId: row.id,
      event: row.event,
      status: row.status,
      httpStatus: row.httpStatus,
      attemptedAt: row.attemptedAt,
      nextRetryAt: row.nextRetryAt,
      attempts: row.attempts,
      createdAt: row.createdAt
    },
    { disableValidation: true }
  )

const toTarget = (row: typeof TargetRow.Type): DeliveryTarget => ({
  deliveryId: row.id,
  accountId: row.accountId,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  scheduleFrom: row.scheduleFrom,
  // Withdrawals, the test event and events recorded before 0004 kept their body frozen (storedEvent.ts).
  stored: storedEvent(row, row.event, row.createdAt),
  webhook:
    row.url !== null && row.secret !== null
      ? Option.some({ url: row.url, secret: row.secret, previousSecret: row.previousSecret })
      : Option.none()
})

const DetailRow = Schema.Struct({
  id: Schema.String,
  eventId: Schema.String,
  event: Schema.String,
  url: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Number,
  httpStatus: Schema.NullOr(Schema.Number),
  attemptedAt: Schema.NullOr(Schema.DateFromSelf),
  nextRetryAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  lastError: Schema.NullOr(Schema.String),
  requestHeaders: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.String })),
  requestBody: Schema.NullOr(Schema.String),
  responseBody: Schema.NullOr(Schema.String),
  latencyMs: Schema.NullOr(Schema.Number)
})

const toDetail = (row: typeof DetailRow.Type) =>
  DeliveryDetail.make(
    {
      deliveryId: row.id,
      eventId: row.eventId,
      event: row.event,
      url: row.url,
      status: row.status,
      attempts: row.attempts,
      attemptedAt: row.attemptedAt,
      nextRetryAt: row.nextRetryAt,
      createdAt: row.createdAt,
      request: row.requestHeaders === null ? null : { headers: row.requestHeaders, body: row.requestBody ?? "" },
      // An attempt that got no answer still has its latency (how long until it gave up).
      response:
        row.attemptedAt === null ? null : { status: row.httpStatus, body: row.responseBody, latencyMs: row.latencyMs },
      error: row.lastError
    },
    { disableValidation: true }
  )

interface RotatedRow extends WebhookRow {
  readonly previousSecretExpiresAt: Date
}

const DELIVERY_COLUMNS = "id, event, status, http_status, attempted_at, next_retry_at, attempts, created_at"

export const WebhookRepoLive = Layer.scoped(
  WebhookRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(DELIVERY_COLUMNS)
    const targets = yield* batched((ids: ReadonlyArray<string>) =>
      sql`
          select d.id, d.account_id, d.event, d.status, d.attempts, d.schedule_from, e.kind, e.origin, e.snapshot,
                 e.created_at,
                 e.payload::text as frozen, w.url, w.secret,
                 case when w.previous_secret_expires_at > now() then w.previous_secret end as previous_secret
          from webhook_deliveries d
          join events e on e.id = d.event_id
          left join webhooks w on w.account_id = d.account_id
          where d.id = any(${ids}::uuid[])`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(TargetRow))),
        Effect.orDie,
        Effect.map((rows) => {
          const byId = new Map(rows.map((row) => [row.id, row]))
          return ids.map((id) => byId.get(id))
        }),
        withSpan("WebhookRepo.targets", { attributes: { count: ids.length } })
      )
    )
    const recordOne = (deliveryId: string, a: AttemptRecord) =>
      sql`
          update webhook_deliveries set status = ${a.status}, attempts = ${a.attempts}, http_status = ${a.httpStatus},
            attempted_at = ${a.attemptedAt}, next_retry_at = ${a.nextRetryAt}, last_error = ${a.lastError},
            url = coalesce(${a.url ?? null}, url),
            request_headers = ${a.requestHeaders ? JSON.stringify(a.requestHeaders) : null}::jsonb,
            request_body = ${a.requestBody ?? null}, response_body = ${a.responseBody ?? null},
            latency_ms = ${a.latencyMs ?? null}
          where id = ${deliveryId} and status = 'PENDING'
          returning id`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.length > 0)
      )
    const recordMany = yield* batched((attempts: ReadonlyArray<readonly [string, AttemptRecord]>) =>
      sql<{ id: string }>`
          update webhook_deliveries d set status = v.status, attempts = v.attempts, http_status = v.http_status,
            attempted_at = v.attempted_at, next_retry_at = v.next_retry_at, last_error = v.last_error,
            url = coalesce(v.url, d.url),
            request_headers = v.request_headers, request_body = v.request_body, response_body = v.response_body,
            latency_ms = v.latency_ms
          from unnest(${attempts.map(([id]) => id)}::uuid[], ${attempts.map(([, a]) => a.status)}::text[],
                      ${attempts.map(([, a]) => a.attempts)}::int[], ${attempts.map(([, a]) => a.httpStatus)}::int[],
                      ${attempts.map(([, a]) => a.attemptedAt.toISOString())}::timestamptz[],
                      ${attempts.map(([, a]) => a.nextRetryAt?.toISOString() ?? null)}::timestamptz[],
                      ${attempts.map(([, a]) => a.lastError)}::text[],
                      ${attempts.map(([, a]) => a.url ?? null)}::text[],
                      ${attempts.map(([, a]) => (a.requestHeaders ? JSON.stringify(a.requestHeaders) : null))}::jsonb[],
                      ${attempts.map(([, a]) => a.requestBody ?? null)}::text[],
                      ${attempts.map(([, a]) => a.responseBody ?? null)}::text[],
                      ${attempts.map(([, a]) => a.latencyMs ?? null)}::int[])
            as v(id, status, attempts, http_status, attempted_at, next_retry_at, last_error, url,
                 request_headers, request_body, response_body, latency_ms)
          where d.id = v.id and d.status = 'PENDING'
          returning d.id`.pipe(
        Effect.orDie,
        Effect.map((rows) => {
          const updated = new Set(rows.map((row) => row.id))
          return attempts.map(([id]) => updated.has(id))
        }),
        withSpan("WebhookRepo.recordAttempts", { attributes: { count: attempts.length } })
      )
    )
    return WebhookRepo.of(
      traced("WebhookRepo", {
        // xmax = 0 tells an inserted row from an updated one. A replaced URL keeps its secret, so
        // receivers need not reconfigure; delete and register again to rotate it.
        upsert: (accountId, url, newSecret) =>
          sql<WebhookRow>`
          insert into webhooks (account_id, url, secret) values (${accountId}, ${url}, ${newSecret})
          on conflict (account_id) do update set url = excluded.url, updated_at = now()
          returning url, secret, created_at, updated_at, (xmax = 0) as created`.pipe(
            Effect.orDie,
            Effect.map(([row]) => ({ webhook: toWebhook(row!), created: row!.created === true }))
          ),
        find: (accountId) =>
          sql<WebhookRow>`select url, secret, created_at, updated_at from webhooks
            where account_id = ${accountId}`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toWebhook))
          ),
        remove: (accountId) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                const deleted = yield* sql`delete from webhooks where account_id = ${accountId} returning account_id`
                yield* sql`
            update webhook_deliveries set status = 'FAILED', next_retry_at = null, last_error = 'webhook deleted'
            where account_id = ${accountId} and status = 'PENDING'`
                return deleted.length > 0
              })
            )
            .pipe(Effect.orDie),
        // Newest first, ties by id descending like every list (docs/api.md "Lists"): keyset pages on the
        // index (account_id, created_at desc, id) of 0009 (rows of one instant, rare, are sorted on the
        // fly); `created_at <= key` keeps the scan on the index.
        deliveries: (accountId, filter) =>
          keysetStream(
            (after, limit) => sql`
              select ${columns}, ${sql.literal(KEYSET_AT)} from webhook_deliveries
              where account_id = ${accountId}
                ${filter.status ? sql`and status = ${filter.status}` : sql``}
                ${filter.event ? sql`and event = ${filter.event}` : sql``}
                ${Option.match(after, {
                  onNone: () => sql``,
                  onSome: (key) => sql`
                    and created_at <= ${key.at}::timestamptz
                    and (created_at < ${key.at}::timestamptz or id < ${key.id}::uuid)`
                })}
              order by created_at desc, id desc limit ${limit}`,
            (rows) => Effect.sync(() => (rows as ReadonlyArray<unknown> as ReadonlyArray<DeliveryRow>).map(toDelivery))
          ),
        findDelivery: (accountId, deliveryId) =>
          sql<DeliveryRow>`select ${columns} from webhook_deliveries where account_id = ${accountId} and id =
          ${deliveryId}`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toDelivery))
          ),
        // Batched with the concurrent calls of other delivery jobs: one round trip for many.
        target: (deliveryId) =>
          Effect.map(targets(deliveryId), (row) => Option.map(Option.fromNullable(row), toTarget)),
        // Inside a transaction (a failed attempt and its next job) it runs on the transaction's connection;
        // outside (a success), it joins the concurrent ones in one statement.
        recordAttempt: (deliveryId, a) =>
          Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (tx) =>
            Option.isSome(tx) ? recordOne(deliveryId, a) : recordMany([deliveryId, a])
          ),
        // A manual resend starts the retry schedule again; `attempts` keeps counting (docs/webhooks.md
        // "Deliveries").
        markPending: (accountId, deliveryId) =>
          sql<DeliveryRow>`
          update webhook_deliveries set status = 'PENDING', next_retry_at = now(), schedule_from = attempts
          where account_id = ${accountId} and id = ${deliveryId}
          returning ${columns}`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toDelivery))
          ),
        // Finished deliveries go first; an event goes once no delivery refers to it any more.
        deleteHistoryOlderThan: (days) =>
          Effect.gen(function* () {
            const deliveries = yield* sql`
            delete from webhook_deliveries
            where status <> 'PENDING' and created_at < now() - make_interval(days => ${days}) returning 1`
            yield* sql`
            delete from events e where e.created_at < now() - make_interval(days => ${days})
              and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)`
            return deliveries.length
          }).pipe(Effect.orDie),
        deliveryDetail: (accountId, deliveryId) =>
          sql`
          select id, event_id, event, url, status, attempts, http_status, attempted_at, next_retry_at, created_at,
                 last_error, request_headers, request_body, response_body, latency_ms
          from webhook_deliveries where account_id = ${accountId} and id = ${deliveryId}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(DetailRow))),
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toDetail))
          ),
        // One statement: the rows back to PENDING, each with its retry schedule started again as markPending
        // does, and one job each, keyed by the delivery like the outbox's, so a delivery never has two jobs.
        // Deliveries of a deleted webhook stay FAILED.
        resendFailed: (accountId, since) =>
          sql<{ count: number }>`
          with resent as (
            update webhook_deliveries d set status = 'PENDING', next_retry_at = now(), schedule_from = d.attempts
            where d.account_id = ${accountId} and d.status = 'FAILED' and d.created_at >= ${since}
              and exists (select 1 from webhooks w where w.account_id = d.account_id)
            returning d.id
          )
          select count(graphile_worker.add_job('deliver_webhook', json_build_object('deliveryId', r.id::text),
                   job_key := r.id::text, job_key_mode := 'replace', max_attempts := 25))::int as count
          from resent r`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows[0]?.count ?? 0)
          ),
        rotateSecret: (accountId, newSecret, overlapUntil) =>
          sql<RotatedRow>`
          update webhooks set previous_secret = secret, previous_secret_expires_at = ${overlapUntil},
            secret = ${newSecret}, updated_at = now()
          where account_id = ${accountId}
          returning url, secret, created_at, updated_at, previous_secret_expires_at`.pipe(
            Effect.orDie,
            Effect.map((rows) =>
              Option.map(Option.fromNullable(rows[0]), (row) =>
                RotatedWebhook.make(
                  {
                    url: row.url,
                    secret: row.secret,
                    previousSecretExpiresAt: row.previousSecretExpiresAt,
                    createdAt: row.createdAt,
                    updatedAt: row.updatedAt
                  },
                  { disableValidation: true }
                )
              )
            )
          ),
        recordTestEvent: (accountId, ids, name, body) =>
          sql<DeliveryRow>`
          with webhook as (select account_id, url from webhooks where account_id = ${accountId}),
          event as (
            insert into events (id, account_id, type, payload)
            select ${ids.eventId}, account_id, ${name}, ${JSON.stringify(body)}::jsonb from webhook
            returning id
          ),
          delivery as (
            insert into webhook_deliveries (id, account_id, event_id, event, url, status)
            select ${ids.deliveryId}, w.account_id, e.id, ${name}, w.url, 'PENDING' from webhook w, event e
            returning ${columns}
          ),
          job as (
            select graphile_worker.add_job('deliver_webhook', json_build_object('deliveryId', d.id::text),
                     job_key := d.id::text, max_attempts := 25)
            from delivery d
          )
          select d.*, (select count(*) from job) as jobs from delivery d`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toDelivery))
          )
      })
    )
  })
)
