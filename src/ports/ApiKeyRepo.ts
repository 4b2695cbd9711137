import type { AccountId } from "../domain/ids.ts"
import { Context, type Effect, type Option } from "effect"
import type { ApiKey, Principal } from "../domain/account.ts"

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
    /** The active key with this digest. Inactive, rotated-away and unknown keys are all None. */
    readonly findActiveByDigest: (digest: Uint8Array) => Effect.Effect<Option.Option<Principal>>
    readonly findPrimary: (accountId: AccountId) => Effect.Effect<Option.Option<ApiKey>>
    /** Replaces the primary key's secret in place: the old one stops matching at commit. */
    readonly rotatePrimary: (accountId: AccountId, material: KeyMaterial) => Effect.Effect<Option.Option<ApiKey>>
    /** Records when keys were last used, in one write for many requests. */
    readonly touch: (lastUsed: ReadonlyMap<string, Date>) => Effect.Effect<void>
  }
>() {}
