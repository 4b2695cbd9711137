import type { TransactionId } from "../domain/ids.ts"
import { Clock, Effect, Option } from "effect"
import type { TransactionRecord } from "../domain/transaction.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { UndecidedChargeReads } from "../ports/UndecidedCharges.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { fn } from "../spans.ts"

/** What the operator read in the acquirer's records: the sale captured (with its reference, when read) or not. */
export type ChargeOutcome =
  { readonly _tag: "Captured"; readonly acquirerReference?: string | undefined } | { readonly _tag: "Declined" }

/**
 * Card charges whose outcome the gateway could not learn (docs/operations.md `card_charge_unknown`): the
 * acquirer may have charged the buyer and its answer was lost, and `reconcile_charges` keeps asking a status
 * query that keeps failing. The charge stays PROCESSING (its order refuses any other charge,
 * `payment_in_progress`) until the acquirer answers the job or an operator concludes it from the acquirer's
 * records (`npm run cli -- charges pending`, `charges conclude`), whichever comes first.
 */
export class UndecidedCharges extends Effect.Service<UndecidedCharges>()("UndecidedCharges", {
  effect: Effect.gen(function* () {
    const reads = yield* UndecidedChargeReads
    const transactions = yield* TransactionRepo
    const lifecycle = yield* Lifecycle
    const tx = yield* Transactional
    return {
      /** Every account's, oldest first (the operator's list). */
      pending: (limit: number) => reads.pending(limit),
      /**
       * An operator's word on an undecided card charge: captured moves it by the trigger reconciliation uses when
       * the acquirer approves (`capture`: CAPTURED, its sale's postings, its order PAID, its event), declined by
       * `decline` (DECLINED with `card_declined`, its event; the order takes another charge). Under the
       * transaction's row lock and once: a charge no longer PROCESSING (the job, a retry or another operator
       * concluded it first), or worked on again by a request meanwhile, is `NotPending`.
       */
      conclude: fn("UndecidedCharges.conclude")(function* (id: TransactionId, outcome: ChargeOutcome) {
        const pending = yield* reads.findPending(id)
        if (pending === undefined) return { _tag: "NotPending" } as const
        const concluded = yield* tx.retrying(
          Effect.gen(function* () {
            const found = yield* transactions.findForUpdate(pending.accountId, id)
            if (Option.isNone(found) || found.value.status !== "PROCESSING") return undefined
            // Read again under the lock: a retry resuming it marks it first (Payments.chargeCard), and then it is
            // that request's to settle from the acquirer's own answer.
            if ((yield* reads.findPending(id)) === undefined) return undefined
            const t = found.value
            if (outcome._tag === "Declined")
              return yield* lifecycle.apply(pending.accountId, t, "decline", { declineCode: "card_declined" })
            return yield* lifecycle.apply(pending.accountId, t, "capture", {
              paidAt: new Date(yield* Clock.currentTimeMillis),
              ...(outcome.acquirerReference === undefined ? {} : { acquirerReference: outcome.acquirerReference })
            })
          })
        )
        if (concluded === undefined) return { _tag: "NotPending" } as const
        return { _tag: "Concluded", transaction: concluded satisfies TransactionRecord } as const
      })
    }
  })
}) {}
