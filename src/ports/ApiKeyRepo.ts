import type { AccountId } from "../domain/ids.ts"
import { Context, type Effect, type Option } from "effect"
import type { ApiKey } from "../domain/account.ts"

/** What is stored of a key: its digest, never the key. */
export interface KeyMaterial {
  readonly keyPrefix: string
  readonly keyLast4: string
  readonly keyDigest: Uint8Array
}

export interface NewApiKey extends KeyMaterial {
  readonly id: string
  readonly accountId: AccountId
  readonly label: string
  readonly isPrimary: boolean
  readonly scopes: ReadonlyArray<string> | null
  readonly rateLimit: number
}

export class ApiKeyRepo extends Context.Tag("ApiKeyRepo")<
  ApiKeyRepo,
  {
    readonly insert: (key: NewApiKey) => Effect.Effect<ApiKey>
    readonly findPrimary: (accountId: AccountId) => Effect.Effect<Option.Option<ApiKey>>
    /** Replaces the primary key's secret in place: the old one stops matching at commit. */
    readonly rotatePrimary: (accountId: AccountId, material: KeyMaterial) => Effect.Effect<Option.Option<ApiKey>>
    /**
     * The account's primary key with this secret: inserted, or the existing one's secret replaced, in one
     * statement, so two first requests at once both succeed and the last to commit holds the key.
     */
    readonly putPrimary: (key: NewApiKey) => Effect.Effect<ApiKey>
    /** The account's restricted keys (not the primary), newest first, revoked ones included. */
    readonly listRestricted: (accountId: AccountId) => Effect.Effect<ReadonlyArray<ApiKey>>
    /**
     * Deactivates one of the account's restricted keys; admission reads `active` on every request
     * (api_key_admit, migration 0010), so it is refused from the commit on, by every process.
     */
    readonly revokeRestricted: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<ApiKey>>
    /** Records when keys were last used, in one write for many requests. */
    readonly touch: (lastUsed: ReadonlyMap<string, Date>) => Effect.Effect<void>
  }
>() {}
