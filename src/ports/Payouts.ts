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
    /**
     * Whether this bank pays out at all: false in live mode until a payouts adapter is configured, and a
     * withdrawal is then refused before any money moves (409 `payouts_unavailable`).
     */
    readonly available: Effect.Effect<boolean>
    readonly pay: (request: {
      readonly withdrawalId: string
      readonly amount: number
      readonly bankAccount: BankAccount
    }) => Effect.Effect<PayoutResult, ProviderUnavailable>
  }
>() {}
