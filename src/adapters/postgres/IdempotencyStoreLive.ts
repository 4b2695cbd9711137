import { SqlClient } from "@effect/sql"
import { deferWrite } from "./deferred.ts"
import { traced } from "./traced.ts"
import { Effect, Layer } from "effect"
import { IdempotencyStore } from "../../ports/IdempotencyStore.ts"
import { claimOutcome, type ClaimColumns } from "./claimOutcome.ts"
import { ClaimOwner, ClaimOwnerLive } from "./ClaimOwner.ts"

export const IdempotencyStoreLive = Layer.effect(
  IdempotencyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const owner = yield* ClaimOwner
    return IdempotencyStore.of(
      traced("IdempotencyStore", {
        // A claim protects a running request while its owner process lives (migration 0014) and its
        // lease (60 s) lasts; a process that dies mid-request frees its keys at once. The rules are
        // idempotency_claim's (migrations 0012 and 0014), one statement.
        claim: (accountId, key, fingerprint, newResourceId) =>
          sql<ClaimColumns>`select outcome, resource_id, response_status, response_body
            from idempotency_claim(${accountId}, ${key}, ${fingerprint}, ${newResourceId}, ${owner.id})`.pipe(
            Effect.map(([row]) => claimOutcome(row!)),
            Effect.orDie
          ),
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
).pipe(Layer.provide(ClaimOwnerLive))
