import type { AccountId } from "../../domain/ids.ts"
import { SqlClient } from "@effect/sql"
import { traced } from "./traced.ts"
import { Effect, Layer, Option } from "effect"
import { ApiKey } from "../../domain/account.ts"
import { maskKey } from "../../domain/apiKey.ts"
import { ApiKeyRepo } from "../../ports/ApiKeyRepo.ts"

interface ApiKeyRow {
  readonly id: string
  readonly accountId: AccountId
  readonly label: string
  readonly keyPrefix: string
  readonly keyLast4: string
  readonly scopes: ReadonlyArray<string> | null
  readonly active: boolean
  readonly rateLimit: number
  readonly lastUsedAt: Date | null
  readonly createdAt: Date
}

/** The columns ApiKeyRow reads, named: a prepared `*` would fail once a migration adds one (prepared.ts). */
const COLUMNS = "id, account_id, label, key_prefix, key_last4, scopes, active, rate_limit, last_used_at, created_at"

const toApiKey = (row: ApiKeyRow) =>
  ApiKey.make(
    {
      id: row.id,
      label: row.label,
      keyPrefix: row.keyPrefix,
      maskedKey: maskKey(row.keyPrefix, row.keyLast4),
      active: row.active,
      rateLimit: row.rateLimit,
      scopes: row.scopes,
      lastUsedAt: row.lastUsedAt,
      createdAt: row.createdAt
    },
    { disableValidation: true }
  )

export const ApiKeyRepoLive = Layer.effect(
  ApiKeyRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    return ApiKeyRepo.of(
      traced("ApiKeyRepo", {
        insert: (key) =>
          sql<ApiKeyRow>`
          insert into api_keys (id, account_id, label, key_prefix, key_last4, key_digest, is_primary, scopes,
            rate_limit)
          values (${key.id}, ${key.accountId}, ${key.label}, ${key.keyPrefix}, ${key.keyLast4},
                  ${Buffer.from(key.keyDigest)}, ${key.isPrimary}, ${key.scopes === null ? null : key.scopes},
                    ${key.rateLimit})
          returning ${columns}`.pipe(
            Effect.orDie,
            Effect.map((rows) => toApiKey(rows[0]!))
          ),
        putPrimary: (key) =>
          sql<ApiKeyRow>`
          insert into api_keys (id, account_id, label, key_prefix, key_last4, key_digest, is_primary, scopes,
            rate_limit)
          values (${key.id}, ${key.accountId}, ${key.label}, ${key.keyPrefix}, ${key.keyLast4},
                  ${Buffer.from(key.keyDigest)}, true, null, ${key.rateLimit})
          on conflict (account_id) where is_primary do update
          set key_prefix = excluded.key_prefix, key_last4 = excluded.key_last4, key_digest = excluded.key_digest,
            created_at = now(), last_used_at = null
          returning ${columns}`.pipe(
            Effect.orDie,
            Effect.map((rows) => toApiKey(rows[0]!))
          ),
        findPrimary: (accountId) =>
          sql<ApiKeyRow>`select ${columns} from api_keys where account_id = ${accountId} and is_primary`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey))
          ),
        rotatePrimary: (accountId, material) =>
          sql<ApiKeyRow>`
          update api_keys
          set key_prefix = ${material.keyPrefix}, key_last4 = ${material.keyLast4}, key_digest =
            ${Buffer.from(material.keyDigest)},
              created_at = now(), last_used_at = null
          where account_id = ${accountId} and is_primary
          returning ${columns}`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey))
          ),
        listRestricted: (accountId) =>
          sql<ApiKeyRow>`
          select ${columns} from api_keys where account_id = ${accountId} and not is_primary
          order by created_at desc, id desc`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.map(toApiKey))
          ),
        revokeRestricted: (accountId, id) =>
          sql<ApiKeyRow>`
          update api_keys set active = false
          where id = ${id} and account_id = ${accountId} and not is_primary
          returning ${columns}`.pipe(
            Effect.orDie,
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey))
          ),
        touch: (lastUsed) => {
          if (lastUsed.size === 0) return Effect.void
          const ids = [...lastUsed.keys()]
          const times = ids.map((id) => lastUsed.get(id)!.toISOString())
          return sql`
          update api_keys k set last_used_at = greatest(k.last_used_at, u.at)
          from unnest(${ids}::uuid[], ${times}::timestamptz[]) as u(id, at)
          where k.id = u.id`.pipe(Effect.orDie, Effect.asVoid)
        }
      })
    )
  })
)
