import type { AccountId, SubaccountId, WithdrawalId } from "../domain/ids.ts"
import { Clock, Effect, Option } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { Conflict, NotFound, ValidationFailed } from "../domain/errors.ts"
import { entry, MERCHANT, SYSTEM } from "../domain/ledger.ts"
import type { BankAccount } from "../domain/subaccount.ts"
import { withdrawalEventBody, type WithdrawalRecord } from "../domain/withdrawal.ts"
import { withdrawalLeavesAt } from "../domain/time.ts"
import type { PageRange } from "../ports/Page.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { Ledger } from "../ports/Ledger.ts"
import { Metrics } from "../ports/Metrics.ts"
import { Outbox } from "../ports/Outbox.ts"
import { Payouts } from "../ports/Payouts.ts"
import { SubaccountRepo } from "../ports/SubaccountRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { WithdrawalRepo } from "../ports/WithdrawalRepo.ts"
import { fn, withSpan } from "../spans.ts"

export interface WithdrawalCommand {
  readonly amount: number
  readonly subaccountId: SubaccountId | null
  /** Required for the main account; a subaccount is paid to its registered account. */
  readonly bankAccount: BankAccount | null
}

/**
 * Withdrawals (CONTRACT-v1 §7): the amount leaves `available` at once, under the balance's row lock
 * (so concurrent withdrawals never take more than there is), and a job asks the bank to pay it.
 * A failed transfer puts the money back (`withdraw_reversal`).
 */
export class Withdrawals extends Effect.Service<Withdrawals>()("Withdrawals", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const repo = yield* WithdrawalRepo
    const subaccounts = yield* SubaccountRepo
    const ledger = yield* Ledger
    const payouts = yield* Payouts
    const outbox = yield* Outbox
    const scheduler = yield* JobScheduler
    const metrics = yield* Metrics
    const tx = yield* Transactional
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const found = <A>(value: Option.Option<A>) =>
      Option.match(value, {
        onNone: () => Effect.fail(new NotFound({ message: "withdrawal not found" })),
        onSome: Effect.succeed
      })

    const create = fn("Withdrawals.create")(function* (
      accountId: AccountId,
      command: WithdrawalCommand,
      id: WithdrawalId
    ) {
      // A retry that took a dead request's Idempotency-Key claim over keeps its withdrawal id (docs/decisions.md
      // "Refunds and withdrawals resumed"): a withdrawal recorded under it answers as created, never taken
      // from the balance again (that found the balance already short, 409, or clashed with the id, 500).
      const earlier = yield* repo.find(accountId, id)
      if (Option.isSome(earlier)) return earlier.value
      // Live mode without a payouts adapter (issue 24): refused before any money moves.
      if (!(yield* payouts.available)) {
        return yield* new Conflict({
          code: "payouts_unavailable",
          message: "withdrawals are not available in this mode: no payouts provider is configured"
        })
      }
      let bankAccount = command.bankAccount
      if (command.subaccountId !== null) {
        const sub = yield* subaccounts.find(accountId, command.subaccountId)
        if (Option.isNone(sub)) return yield* ValidationFailed.one("subaccount_id", "subaccount_id not found")
        bankAccount = sub.value.bankAccount
      }
      if (bankAccount === null) {
        return yield* ValidationFailed.one("bank_account", "bank_account is required for the main account")
      }
      const party = command.subaccountId ?? MERCHANT
      const at = yield* now
      // Only the database inside: a deadlock's victim is run again (docs/ledger.md).
      const created = yield* tx.retrying(
        Effect.gen(function* () {
          const balances = yield* ledger.lock(accountId, [party])
          const available = balances.get(party)!.available
          if (command.amount > available) {
            return yield* new Conflict({
              code: "insufficient_balance",
              message: `the available balance (${available}) cannot cover this withdrawal`
            })
          }
          const w = yield* repo.insert(accountId, {
            id,
            subaccountId: command.subaccountId,
            amount: command.amount,
            bankAccount
          })
          yield* ledger.post(
            accountId,
            entry(`withdraw:${id}`, { withdrawalId: id }, [
              { party, book: "available", type: "withdraw", amount: -command.amount, description: "withdrawal" },
              { party: SYSTEM, book: "payouts", type: "withdraw", amount: command.amount, description: "withdrawal" }
            ])
          )
          // A withdrawal is a TED to a bank account: it leaves on a business day (docs/calendar.md).
          yield* scheduler.payWithdrawalAt(accountId, id, withdrawalLeavesAt(at, config.money.withdrawalDelaySeconds))
          return w
        })
      )
      metrics.withdrawals.inc({ outcome: "requested" })
      return created
    })

    /** The payout job: asks the bank once per withdrawal id, then records the outcome once. */
    const pay = fn("Withdrawals.pay")(function* (accountId: AccountId, id: WithdrawalId) {
      const current = yield* repo.find(accountId, id)
      if (Option.isNone(current) || current.value.status !== "pending") return
      const result = yield* payouts
        .pay({ withdrawalId: id, amount: current.value.amount, bankAccount: current.value.bankAccount })
        .pipe(Effect.orDie)
      yield* tx.retrying(
        Effect.gen(function* () {
          const locked = yield* repo.findForUpdate(accountId, id)
          if (Option.isNone(locked) || locked.value.status !== "pending") return
          const w = locked.value
          const at = yield* now
          const party = w.subaccountId ?? MERCHANT
          let done: WithdrawalRecord
          if (result._tag === "Paid") {
            done = yield* repo.finish(accountId, id, "paid", at, null)
          } else {
            done = yield* repo.finish(accountId, id, "failed", at, result.reason)
            yield* ledger.lock(accountId, [party])
            yield* ledger.post(
              accountId,
              entry(`withdraw_reversal:${id}`, { withdrawalId: id }, [
                { party, book: "available", type: "withdraw_reversal", amount: w.amount, description: result.reason },
                {
                  party: SYSTEM,
                  book: "payouts",
                  type: "withdraw_reversal",
                  amount: -w.amount,
                  description: result.reason
                }
              ])
            )
          }
          const name = done.status === "paid" ? "withdraw.paid" : "withdraw.failed"
          yield* outbox.emitFrozen(accountId, name, withdrawalEventBody(name, done, at))
          yield* tx.afterCommit(Effect.sync(() => metrics.withdrawals.inc({ outcome: done.status })))
        })
      )
    })

    return {
      create,
      pay,
      get: (accountId: AccountId, id: WithdrawalId) =>
        Effect.flatMap(repo.find(accountId, id), found).pipe(withSpan("Withdrawals.get")),
      page: fn("Withdrawals.page")(function* (
        accountId: AccountId,
        subaccountId: SubaccountId | null | undefined,
        range: PageRange
      ) {
        // A filter naming a subaccount the account does not own is a 404, as on the balance and the
        // financials (CONTRACT-v1 §1), not an empty list that says nothing about whether it exists.
        if (typeof subaccountId === "string" && Option.isNone(yield* subaccounts.find(accountId, subaccountId))) {
          return yield* new NotFound({ message: "subaccount not found" })
        }
        return yield* repo.page(accountId, { subaccountId }, range)
      })
    }
  })
}) {}
