import { Context, type Effect, type Option } from "effect"
import type { Tenant } from "../domain/account.ts"
import type { EmailAlreadyRegistered } from "../domain/errors.ts"
import type { AccountId } from "../domain/ids.ts"

export interface NewAccount {
  readonly id: string
  readonly name: string
  readonly email: string
  readonly passwordHash: string
  /** CPF or CNPJ, normalised; null when the merchant gave none. */
  readonly document: string | null
}

export class AccountRepo extends Context.Tag("AccountRepo")<
  AccountRepo,
  {
    readonly insert: (account: NewAccount) => Effect.Effect<Tenant, EmailAlreadyRegistered>
    readonly findByEmail: (
      email: string
    ) => Effect.Effect<Option.Option<{ readonly account: Tenant; readonly passwordHash: string }>>
    readonly findById: (id: string) => Effect.Effect<Option.Option<Tenant>>
    /**
     * The merchant's live tenant, created with the merchant's name, email and document the first time
     * it is asked for (one per merchant, also when two requests race). `ownerId` is the merchant's test
     * tenant, the account that logs in.
     */
    readonly liveTenant: (ownerId: AccountId, newId: string) => Effect.Effect<Tenant>
  }
>() {}
