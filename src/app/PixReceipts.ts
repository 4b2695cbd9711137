import { Effect, Layer, Option } from "effect"
import { PixInbox, ReceivedPixRepo, type ReceivedPixSource } from "../ports/ReceivedPixRepo.ts"
import type { ReceivedPix } from "../ports/PixProvider.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { Refunds } from "./Refunds.ts"
import { fn } from "../spans.ts"

/**
 * The PSP's payment notices, from the webhook receiver or the reconciliation listing, whatever the PSP.
 * Each payment is claimed by its end-to-end id and, in the same database transaction, settles its charge
 * through the lifecycle (PAID, postings, merchant event): seen twice, by either path or both at once, it
 * settles once. A payment that cannot settle its charge is recorded with why (docs/providers.md). The
 * refunds' final statuses that come with the payments conclude our PENDING refunds.
 */
export const PixReceiptsLive = Layer.effect(
  PixInbox,
  Effect.gen(function* () {
    const received = yield* ReceivedPixRepo
    const transactions = yield* TransactionRepo
    const lifecycle = yield* Lifecycle
    const tx = yield* Transactional
    const refunds = yield* Refunds

    const one = fn("PixReceipts.one")(function* (payment: ReceivedPix, source: ReceivedPixSource) {
      if (!(yield* received.claim(payment, source))) return "duplicate" as const
      const charge = payment.txid === null ? Option.none() : yield* received.chargeOf(payment.txid)
      if (Option.isNone(charge)) {
        yield* Effect.logWarning("PIX payment for no known charge recorded", { endToEndId: payment.endToEndId })
        return "exception" as const
      }
      const { accountId, transactionId } = charge.value
      const t = yield* Effect.flatten(transactions.findForUpdate(accountId, transactionId)).pipe(Effect.orDie)
      const outcome =
        payment.amount !== t.amountTotal ? "amount_mismatch" : t.status !== "PENDING" ? "not_payable" : "settled"
      yield* received.setOutcome(payment.endToEndId, outcome, charge.value)
      if (outcome !== "settled") {
        yield* Effect.logWarning(`PIX payment recorded as ${outcome}`, { endToEndId: payment.endToEndId })
        return "exception" as const
      }
      // PENDING → PAID is always legal for a PIX (domain/lifecycle.ts): a failure here is a defect.
      yield* lifecycle.apply(accountId, t, "pay", { paidAt: payment.paidAt }).pipe(Effect.orDie)
      return "settled" as const
    })

    return PixInbox.of({
      receive: (payments, source) =>
        Effect.gen(function* () {
          const counts = { settled: 0, duplicates: 0, exceptions: 0 }
          // One database transaction per payment: one bad payment does not hold back the batch's others.
          for (const payment of payments) {
            const result = yield* tx.run(one(payment, source))
            if (result === "settled") counts.settled++
            else if (result === "duplicate") counts.duplicates++
            else counts.exceptions++
          }
          // The final statuses of refunds the PSP reports with the payments conclude PENDING refunds at once,
          // by the sweep's own code; a duplicate of the payment may carry them (docs/providers.md "Refunds").
          yield* refunds.concludeReported(payments.flatMap((p) => p.refunds))
          return counts
        }).pipe(Effect.withSpan("PixReceipts.receive"))
    })
  })
)
