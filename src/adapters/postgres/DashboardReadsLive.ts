import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { Customer } from "../../domain/customer.ts"
import { PaymentMethod, TransactionRecord } from "../../domain/transaction.ts"
import { DashboardReads } from "../../ports/DashboardReads.ts"
import type { ListKey } from "../../ports/Page.ts"
import { KEYSET_AT, seekAfter } from "./keyset.ts"
import { COLUMNS } from "./transactionRow.ts"
import { CustomerRow } from "./customerRow.ts"
import { storedEvent, StoredEventFields } from "./storedEvent.ts"
import { traced } from "./traced.ts"

const TRANSACTION_COLUMNS = COLUMNS.split(",")
  .map((c) => `t.${c.trim()}`)
  .join(", ")

const decodeTransactions = Schema.decodeUnknown(Schema.Array(TransactionRecord))

const decodeCustomers = Schema.decodeUnknown(Schema.Array(CustomerRow))

const DayRow = Schema.Struct({
  day: Schema.String,
  method: PaymentMethod,
  count: Schema.NumberFromString,
  paid: Schema.NumberFromString,
  refused: Schema.NumberFromString,
  gross: Schema.NumberFromString,
  refunded: Schema.NumberFromString,
  fees: Schema.NumberFromString
})
const decodeDays = Schema.decodeUnknown(Schema.Array(DayRow))

const RefundRow = Schema.Struct({
  id: Schema.String,
  amount: Schema.Union(Schema.Number, Schema.NumberFromString),
  reason: Schema.NullOr(Schema.String),
  status: Schema.String,
  createdAt: Schema.DateFromSelf,
  completedAt: Schema.NullOr(Schema.DateFromSelf)
})
const EventRow = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  ...StoredEventFields,
  createdAt: Schema.DateFromSelf
})
const DeliveryRow = Schema.Struct({
  id: Schema.String,
  eventId: Schema.String,
  event: Schema.String,
  url: Schema.String,
  status: Schema.String,
  attempts: Schema.Number,
  httpStatus: Schema.NullOr(Schema.Number),
  attemptedAt: Schema.NullOr(Schema.DateFromSelf),
  nextRetryAt: Schema.NullOr(Schema.DateFromSelf),
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf
})

const keyOf = (row: unknown): ListKey => {
  const r = row as { keysetAt: unknown; id: unknown }
  return { at: String(r.keysetAt), id: String(r.id) }
}

/** The next page's key when this one is full (a short page is the last). */
const nextOf = (rows: ReadonlyArray<unknown>, limit: number) =>
  rows.length === limit && limit > 0 ? keyOf(rows[rows.length - 1]) : null

export const DashboardReadsLive = Layer.effect(
  DashboardReads,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return DashboardReads.of(
      traced("DashboardReads", {
        transactions: (accountId, f, after, limit) => {
          const filters = [
            sql`t.account_id = ${accountId}`,
            ...(f.statuses && f.statuses.length > 0 ? [sql.in("t.status", f.statuses)] : []),
            ...(f.method ? [sql`t.method = ${f.method}`] : []),
            ...(f.createdFrom ? [sql`t.created_at >= ${f.createdFrom}`] : []),
            ...(f.createdBefore ? [sql`t.created_at < ${f.createdBefore}`] : []),
            ...(f.amountMin !== undefined ? [sql`t.amount_total >= ${f.amountMin}`] : []),
            ...(f.amountMax !== undefined ? [sql`t.amount_total <= ${f.amountMax}`] : []),
            // The buyer of a v1 charge, or the customer of a v2 order (an index each: 0005, 0001).
            ...(f.document
              ? [
                  sql`(t.buyer ->> 'document' = ${f.document} or t.customer_id in (
                    select c.id from customers c where c.account_id = ${accountId} and c.document = ${f.document}))`
                ]
              : []),
            ...(f.metadata ? [sql`t.metadata ->> ${f.metadata.key} = ${f.metadata.value}`] : [])
          ]
          // Newest first on the index (account_id, created_at, id): the page after a key is a seek, so
          // page 10,000 costs what page 1 does (docs/performance.md "Dashboard").
          return sql`
            select ${sql.literal(TRANSACTION_COLUMNS)}, t.${sql.literal(KEYSET_AT)},
                   coalesce(t.buyer ->> 'name', c.name) as buyer_name,
                   coalesce(t.buyer ->> 'document', c.document) as buyer_document
            from transactions t
            left join customers c on c.id = t.customer_id and c.account_id = t.account_id
            where ${sql.and(filters)} ${seekAfter(sql, after, "desc", "uuid", "t.")}
            order by t.created_at desc, t.id desc
            limit ${limit}`.pipe(
            Effect.flatMap((rows) =>
              Effect.map(decodeTransactions(rows), (decoded) => ({
                rows: decoded.map((transaction, i) => {
                  const row = rows[i] as { buyerName: string | null; buyerDocument: string | null }
                  return {
                    transaction,
                    buyer:
                      row.buyerDocument === null ? null : { name: row.buyerName ?? "", document: row.buyerDocument }
                  }
                }),
                next: nextOf(rows, limit)
              }))
            ),
            Effect.orDie
          )
        },
        // Days in America/Sao_Paulo (the merchant's calendar, docs/dashboard.md "Summary"); a sale counts
        // on the day it was created.
        summary: (accountId, from, before) =>
          sql`
            select to_char((created_at at time zone 'America/Sao_Paulo')::date, 'YYYY-MM-DD') as day,
                   method,
                   count(*)::text as count,
                   count(*) filter (where paid_at is not null)::text as paid,
                   count(*) filter (where status in ('DECLINED', 'FAILED'))::text as refused,
                   coalesce(sum(amount_total) filter (where paid_at is not null), 0)::text as gross,
                   coalesce(sum(refunded_amount) filter (where paid_at is not null), 0)::text as refunded,
                   coalesce(sum(fee) filter (where paid_at is not null), 0)::text as fees
            from transactions
            where account_id = ${accountId} and created_at >= ${from} and created_at < ${before}
            group by 1, 2
            order by 1, 2`.pipe(Effect.flatMap(decodeDays), Effect.orDie),
        trail: (accountId, id) =>
          Effect.all({
            refunds: sql`
              select id, amount, reason, status, created_at, completed_at from refunds
              where account_id = ${accountId} and transaction_id = ${id}
              order by created_at, id`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(RefundRow)))),
            // The event as recorded, not a body: the outbox writes a snapshot, which EventPayloads renders
            // (docs/dashboard.md "Timeline": the payload as delivered).
            events: sql`
              select id, type, kind, origin, snapshot, payload::text as frozen, created_at from events
              where account_id = ${accountId} and transaction_id = ${id}
              order by created_at, id`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(EventRow))),
              Effect.map((rows) =>
                rows.map((row) => ({
                  id: row.id,
                  type: row.type,
                  stored: storedEvent(row, row.type, row.createdAt),
                  createdAt: row.createdAt
                }))
              )
            ),
            deliveries: sql`
              select d.id, d.event_id, d.event, d.url, d.status, d.attempts, d.http_status, d.attempted_at,
                     d.next_retry_at, d.last_error, d.created_at
              from webhook_deliveries d join events e on e.id = d.event_id
              where d.account_id = ${accountId} and e.account_id = ${accountId} and e.transaction_id = ${id}
              order by d.created_at, d.id`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(DeliveryRow))))
          }).pipe(Effect.orDie),
        customers: (accountId, search, after, limit) =>
          sql`
            select id, name, email, document, phone, created_at, ${sql.literal(KEYSET_AT)}
            from customers
            where account_id = ${accountId} and deleted_at is null
              ${
                search === undefined
                  ? sql``
                  : sql`and (document = ${search.replace(/\D/g, "") || search}
                        or lower(name) like ${"%" + search.toLowerCase().replace(/[\\%_]/g, "\\$&") + "%"}
                        or lower(email) = ${search.toLowerCase()})`
              }
              ${seekAfter(sql, after, "desc", "uuid")}
            order by created_at desc, id desc
            limit ${limit}`.pipe(
            Effect.flatMap((rows) =>
              Effect.map(decodeCustomers(rows), (decoded) => ({
                rows: decoded.map((row) => Customer.make(row, { disableValidation: true })),
                next: nextOf(rows, limit)
              }))
            ),
            Effect.orDie
          )
      })
    )
  })
)
