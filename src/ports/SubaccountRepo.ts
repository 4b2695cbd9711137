import type { Page, PageRange } from "./Page.ts"
import type { AccountId, SubaccountId } from "../domain/ids.ts"
import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../domain/errors.ts"
import type { BankAccount, SubaccountRecord, SubaccountStatus } from "../domain/subaccount.ts"

export interface NewSubaccount {
  readonly id: SubaccountId
  readonly name: string
  /** Normalised (normalizeDocument) and valid. */
  readonly document: string
  readonly documentType: "cpf" | "cnpj"
  readonly email: string
  readonly phone: string
  readonly bankAccount: BankAccount
}

export interface SubaccountFilter {
  /** Normalised document. */
  readonly document?: string | undefined
  readonly status?: SubaccountStatus | undefined
  readonly createdFrom?: Date | undefined
  /** Exclusive. */
  readonly createdBefore?: Date | undefined
}

/** Every operation is scoped by account. */
export class SubaccountRepo extends Context.Tag("SubaccountRepo")<
  SubaccountRepo,
  {
    /**
     * Inserts an active subaccount. Another subaccount of the account with the same document →
     * Conflict `subaccount_exists` (decided by the database, so concurrent creations give one of each).
     * Inserting an id that already exists with the same document returns that row (a resumed request).
     */
    readonly insert: (accountId: AccountId, subaccount: NewSubaccount) => Effect.Effect<SubaccountRecord, Conflict>
    readonly find: (accountId: AccountId, id: SubaccountId) => Effect.Effect<Option.Option<SubaccountRecord>>
    /** A page of the account's subaccounts, newest first, and how many match in all. */
    readonly page: (
      accountId: AccountId,
      filter: SubaccountFilter,
      range: PageRange
    ) => Effect.Effect<Page<SubaccountRecord>>
  }
>() {}
