import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { EVENT_LIST_DAYS } from "../../domain/events.ts"
import { EventLog, type LoggedEvent } from "../../ports/EventLog.ts"
import { KEYSET_AT, seekAfter } from "./keyset.ts"
import { storedEvent, StoredEventFields } from "./storedEvent.ts"
import { traced } from "./traced.ts"
import { settledHorizon } from "./settledHorizon.ts"

const EventRow = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  transactionId: Schema.NullOr(Schema.String),
  ...StoredEventFields,
  createdAt: Schema.DateFromSelf,
  keysetAt: Schema.String
})
const decodeRows = Schema.decodeUnknown(Schema.Array(EventRow))

const toLogged = (row: typeof EventRow.Type): LoggedEvent => ({
  id: row.id,
  type: row.type,
  transactionId: row.transactionId,
  createdAt: row.createdAt,
  // As the delivery job reads it (WebhookRepoLive): a snapshot rendered per interface, or a frozen body.
  stored: storedEvent(row, row.type, row.createdAt)
})

/**
 * The events table read newest first by (created_at, id) on the index of migration 0024, the last
 * EVENT_LIST_DAYS days only (older ones are on their way out: Housekeeping).
 */
export const EventLogLive = Layer.effect(
  EventLog,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const select = sql`select id, type, transaction_id, kind, origin, snapshot, payload::text as frozen, created_at,
                              ${sql.literal(KEYSET_AT)}
                       from events`
    const recent = sql`created_at >= now() - make_interval(days => ${EVENT_LIST_DAYS})`
    return EventLog.of(
      traced("EventLog", {
        list: (accountId, filter, limit, after) =>
          Effect.flatMap(
            settledHorizon(sql),
            (horizon) => sql`${select}
              where account_id = ${accountId} and ${recent} and created_at < ${horizon}::timestamptz
                ${filter.type === undefined ? sql`` : sql`and type = ${filter.type}`}
                ${filter.transactionId === undefined ? sql`` : sql`and transaction_id = ${filter.transactionId}`}
                ${filter.createdFrom === undefined ? sql`` : sql`and created_at >= ${filter.createdFrom}`}
                ${filter.createdBefore === undefined ? sql`` : sql`and created_at < ${filter.createdBefore}`}
                ${seekAfter(sql, after, "desc", "uuid")}
              order by created_at desc, id desc limit ${limit}`
          ).pipe(
            Effect.flatMap(decodeRows),
            Effect.orDie,
            Effect.map((rows) => {
              const last = rows.length === limit ? rows[rows.length - 1] : undefined
              return {
                rows: rows.map(toLogged),
                next: last === undefined ? null : { at: last.keysetAt, id: last.id }
              }
            })
          ),
        find: (accountId, eventId) =>
          sql`${select} where account_id = ${accountId} and id = ${eventId} and ${recent}`.pipe(
            Effect.flatMap(decodeRows),
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toLogged))
          )
      })
    )
  })
)
