import type { ListFilter } from "../ports/Page.ts"
import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Clock, Effect, Option } from "effect"
import type { Customer } from "../domain/customer.ts"
import { amountDue, type AmountDue } from "../domain/chargeTerms.ts"
import { Conflict, NotFound, ValidationFailed } from "../domain/errors.ts"
import { isDate } from "../domain/calendar.ts"
import { saoPauloDate } from "../domain/time.ts"
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
      /**
       * What a boleto asks if paid on `date` (São Paulo; default today), by its charge terms
       * (docs/boleto.md): 409 `not_a_boleto` for other methods, 400 naming `field` for a bad date.
       */
      amountDue: fn("Transactions.amountDue")(function* (
        accountId: AccountId,
        id: TransactionId,
        date: string | undefined,
        field: string
      ) {
        if (date !== undefined && !isDate(date))
          return yield* ValidationFailed.one(field, `${field} must be YYYY-MM-DD`)
        const t = yield* get(accountId, id)
        const boleto = t.details.boleto
        if (t.method !== "BOLETO" || boleto === undefined) {
          return yield* new Conflict({ code: "not_a_boleto", message: "the transaction is not a boleto" })
        }
        const on = date ?? saoPauloDate(new Date(yield* Clock.currentTimeMillis))
        const due: AmountDue = amountDue(t.amount, boleto.dueDate, boleto.terms, on)
        return { transaction: t, date: on, dueDate: boleto.dueDate, due }
      }),
      /** A page of the account's transactions as views, newest first, with the total of matching ones. */
      page: fn("Transactions.page")(function* (accountId: AccountId, filter: TransactionFilter, range: PageRange) {
        const page = yield* repo.page(accountId, filter, range)
        return { ...page, rows: yield* Effect.forEach(page.rows, (t) => view(accountId, t)) }
      })
    }
  })
}) {}
