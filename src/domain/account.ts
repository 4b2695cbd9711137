import { AccountId } from "./ids.ts"
import { Schema } from "effect"
import { Mode } from "./mode.ts"

export class Account extends Schema.Class<Account>("Account")({
  id: AccountId,
  name: Schema.String,
  email: Schema.String,
  createdAt: Schema.Date
}) {}

/**
 * An account with its mode (issue 24 §1): the tenant. A live tenant belongs to the merchant whose test
 * tenant is `ownerId`. Shown to clients as an Account (the mode travels as `livemode` where it is shown).
 */
export class Tenant extends Account.extend<Tenant>("Tenant")({
  mode: Mode,
  ownerId: Schema.NullOr(AccountId)
}) {}

/**
 * An API key as shown to its owner: never the secret itself, only its first 16 characters
 * (`keyPrefix`) and a masked form. `scopes` null means unrestricted (the account's primary key).
 */
export class ApiKey extends Schema.Class<ApiKey>("ApiKey")({
  id: Schema.UUID,
  label: Schema.String,
  keyPrefix: Schema.String,
  maskedKey: Schema.String,
  active: Schema.Boolean,
  rateLimit: Schema.Int,
  scopes: Schema.NullOr(Schema.Array(Schema.String)),
  lastUsedAt: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date
}) {}

/** Who is calling, once an API key has been checked. */
export interface Principal {
  /** The tenant: the merchant's account of the key's mode. */
  readonly accountId: AccountId
  readonly mode: Mode
  readonly keyId: string
  readonly scopes: ReadonlyArray<string> | null
  readonly rateLimit: number
}
