import type { AccountId, SubaccountId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { NotFound } from "../domain/errors.ts"
import { MERCHANT } from "../domain/ledger.ts"
import type { PageRange } from "../ports/Page.ts"
import { AccountRepo } from "../ports/AccountRepo.ts"
import { Ledger, type StatementFilter } from "../ports/Ledger.ts"
import { SubaccountRepo } from "../ports/SubaccountRepo.ts"
import { fn } from "../spans.ts"

/** What the books say to the merchant: balances and the postings behind them (CONTRACT-v1 §7). */
export class Balances extends Effect.Service<Balances>()("Balances", {
  effect: Effect.gen(function* () {
    const ledger = yield* Ledger
    const subaccounts = yield* SubaccountRepo
    const accounts = yield* AccountRepo

    const known = fn("Balances.known")(function* (accountId: AccountId, subaccountId: SubaccountId | null) {
      if (subaccountId === null) return
      if (Option.isNone(yield* subaccounts.find(accountId, subaccountId)))
        return yield* new NotFound({ message: "subaccount not found" })
    })

    return {
      balance: fn("Balances.balance")(function* (accountId: AccountId, subaccountId: SubaccountId | null) {
        yield* known(accountId, subaccountId)
        const b = yield* ledger.balance(accountId, subaccountId ?? MERCHANT)
        // Before any posting, the balance dates from the account's (or subaccount's) creation.
        const created =
          subaccountId === null
            ? Option.map(yield* accounts.findById(accountId), (a) => a.createdAt)
            : Option.map(yield* subaccounts.find(accountId, subaccountId), (s) => s.createdAt)
        return { ...b, updatedAt: b.updatedAt ?? Option.getOrElse(created, () => new Date()) }
      }),
      financials: fn("Balances.financials")(function* (
        accountId: AccountId,
        subaccountId: SubaccountId | null,
        filter: StatementFilter,
        range: PageRange
      ) {
        yield* known(accountId, subaccountId)
        return yield* ledger.statement(accountId, filter, range)
      })
    }
  })
}) {}
