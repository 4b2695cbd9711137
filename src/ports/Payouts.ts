import { Context, type Effect } from "effect"
import type { ProviderUnavailable } from "../domain/errors.ts"
import type { BankAccount } from "../domain/subaccount.ts"

export type PayoutResult = { readonly _tag: "Paid" } | { readonly _tag: "Failed"; readonly reason: string }

/**
 * The bank that pays withdrawals out (a PIX or TED transfer). `withdrawalId` is the idempotency key:
 * a retried job must not pay twice.
 */
export class Payouts extends Context.Tag("Payouts")<
  Payouts,
  {
    readonly pay: (request: {
      readonly withdrawalId: string
      readonly amount: number
      readonly bankAccount: BankAccount
    }) => Effect.Effect<PayoutResult, ProviderUnavailable>
  }
>() {}
