import { SqlClient } from "@effect/sql"
import { deferWrite } from "./deferred.ts"
import { traced } from "./traced.ts"
import { Effect, Layer } from "effect"
import { IdempotencyStore } from "../../ports/IdempotencyStore.ts"

interface Row {
  readonly fingerprint: string
  readonly resourceId: string
  readonly responseStatus: number | null
  readonly responseBody: string | null
  readonly acquired: boolean
}

export const IdempotencyStoreLive = Layer.effect(
  IdempotencyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return IdempotencyStore.of(
      traced("IdempotencyStore", {
        // A claim's lease (60 s) protects a running request; a process that dies mid-request frees its
        // keys when the lease runs out. One statement decides: insert a new claim, or take over one that is expired
        // (older than 24 h)
        // or whose lease ran out with no response stored; otherwise report what is there.
        claim: (accountId, key, fingerprint, newResourceId) =>
          Effect.gen(function* () {
            const [row] = yield* sql<Row>`
            insert into idempotency_keys as k (account_id, key, fingerprint, resource_id, locked_until)
            values (${accountId}, ${key}, ${fingerprint}, ${newResourceId}, now() + interval '60 seconds')
            on conflict (account_id, key) do update set
              fingerprint = excluded.fingerprint,
              resource_id = case when k.created_at < now() - interval '24 hours' then excluded.resource_id else
                k.resource_id end,
              created_at = case when k.created_at < now() - interval '24 hours' then now() else k.created_at end,
              response_status = case when k.created_at < now() - interval '24 hours' then null else
                k.response_status end,
              response_body = case when k.created_at < now() - interval '24 hours' then null else k.response_body end,
              locked_until = excluded.locked_until
            where k.created_at < now() - interval '24 hours'
               or (k.response_status is null and k.locked_until < now() and k.fingerprint = excluded.fingerprint)
            returning fingerprint, resource_id, response_status, response_body, true as acquired`
            if (row) return { _tag: "Acquired" as const, resourceId: row.resourceId }
            const [existing] = yield* sql<Row>`
            select fingerprint, resource_id, response_status, response_body, false as acquired
            from idempotency_keys where account_id = ${accountId} and key = ${key}`
            if (!existing) return { _tag: "InFlight" as const } // deleted in between: let the client retry
            if (existing.fingerprint !== fingerprint) return { _tag: "Mismatch" as const }
            if (existing.responseStatus !== null && existing.responseBody !== null) {
              return {
                _tag: "Completed" as const,
                response: { status: existing.responseStatus, body: existing.responseBody }
              }
            }
            return { _tag: "InFlight" as const }
          }).pipe(Effect.orDie),
        // Inside a unit of work it is sent with the transaction's other deferred writes, before COMMIT.
        complete: (accountId, key, response) =>
          deferWrite(sql, (as) => ({
            ctes: [
              [
                as("idempotency"),
                sql`update idempotency_keys set response_status = ${response.status},
                      response_body = ${response.body}, locked_until = null
                    where account_id = ${accountId} and key = ${key}`
              ]
            ]
          })),
        forget: (accountId, key) =>
          sql`delete from idempotency_keys where account_id = ${accountId} and key = ${key} and response_status
          is null`.pipe(Effect.orDie, Effect.asVoid),
        release: (accountId, key) =>
          sql`update idempotency_keys set locked_until = now() where account_id = ${accountId} and key = ${key}
          and response_status is null`.pipe(Effect.orDie, Effect.asVoid),
        deleteOlderThan: (hours) =>
          sql`delete from idempotency_keys
            where created_at < now() - make_interval(hours => ${hours}) returning 1`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.length)
          )
      })
    )
  })
)
