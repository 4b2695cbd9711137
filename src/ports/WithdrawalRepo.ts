import type { Page, PageRange } from "./Page.ts"
import type { AccountId, SubaccountId, WithdrawalId } from "../domain/ids.ts"
import { Context, type Effect, type Option } from "effect"
import type { BankAccount } from "../domain/subaccount.ts"
import type { WithdrawalRecord, WithdrawalStatus } from "../domain/withdrawal.ts"

export interface NewWithdrawal {
  readonly id: WithdrawalId
  readonly subaccountId: SubaccountId | null
  readonly amount: number
  readonly bankAccount: BankAccount
}

/** Withdrawals, every operation scoped by account. */
export class WithdrawalRepo extends Context.Tag("WithdrawalRepo")<
  WithdrawalRepo,
  {
    readonly insert: (accountId: AccountId, w: NewWithdrawal) => Effect.Effect<WithdrawalRecord>
    readonly find: (accountId: AccountId, id: WithdrawalId) => Effect.Effect<Option.Option<WithdrawalRecord>>
    readonly findForUpdate: (accountId: AccountId, id: WithdrawalId) => Effect.Effect<Option.Option<WithdrawalRecord>>
    readonly finish: (
      accountId: AccountId,
      id: WithdrawalId,
      status: Exclude<WithdrawalStatus, "pending">,
      at: Date,
      failureReason: string | null
    ) => Effect.Effect<WithdrawalRecord>
    /** Oldest first; `subaccountId` null lists the main account's, undefined all. */
    readonly page: (
      accountId: AccountId,
      filter: { readonly subaccountId?: SubaccountId | null | undefined },
      range: PageRange
    ) => Effect.Effect<Page<WithdrawalRecord>>
  }
>() {}
