import type { ListFilter } from "../ports/Page.ts"
import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import type { Customer } from "../domain/customer.ts"
import { NotFound } from "../domain/errors.ts"
import type { TransactionRecord } from "../domain/transaction.ts"
import { CustomerRepo } from "../ports/CustomerRepo.ts"
import type { PageRange } from "../ports/Page.ts"
import { type TransactionFilter, TransactionRepo } from "../ports/TransactionRepo.ts"
import { fn } from "../spans.ts"

/** A transaction with the customer of its order, for interfaces that show the buyer inline. */
export interface TransactionView {
  readonly transaction: TransactionRecord
  readonly customer: Customer | null
}

/** Reads of the account's transactions, whatever interface made them. */
export class Transactions extends Effect.Service<Transactions>()("Transactions", {
  effect: Effect.gen(function* () {
    const repo = yield* TransactionRepo
    const customers = yield* CustomerRepo

    const get = fn("Transactions.get")(function* (accountId: AccountId, id: TransactionId) {
      return yield* Option.match(yield* repo.find(accountId, id), {
        onNone: () => Effect.fail(new NotFound({ message: "transaction not found" })),
        onSome: Effect.succeed
      })
    })

    const view = fn("Transactions.view")(function* (accountId: AccountId, transaction: TransactionRecord) {
      const customer =
        transaction.buyer === null && transaction.customerId !== null
          ? Option.getOrNull(yield* customers.find(accountId, transaction.customerId))
          : null
      return { transaction, customer } satisfies TransactionView
    })

    return {
      /** The account's transactions (v2 fields), newest first (docs/api.md "Lists"), streamed by pages. */
      list: (accountId: AccountId, filter: ListFilter = {}) => repo.stream(accountId, filter),
      get,
      view,
      getView: fn("Transactions.getView")(function* (accountId: AccountId, id: TransactionId) {
        return yield* view(accountId, yield* get(accountId, id))
      }),
      /** A page of the account's transactions as views, newest first, with the total of matching ones. */
      page: fn("Transactions.page")(function* (accountId: AccountId, filter: TransactionFilter, range: PageRange) {
        const page = yield* repo.page(accountId, filter, range)
        return { ...page, rows: yield* Effect.forEach(page.rows, (t) => view(accountId, t)) }
      })
    }
  })
}) {}
