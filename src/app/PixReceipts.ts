import { Effect, FiberRef, Layer, Option } from "effect"
import { CurrentMode } from "../ports/Modes.ts"
import { PixInbox, ReceivedPixRepo, type ReceivedPixSource } from "../ports/ReceivedPixRepo.ts"
import type { ReceivedPix } from "../ports/PixProvider.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { Bolepix } from "./Bolepix.ts"
import { paymentParts } from "../domain/chargeTerms.ts"
import type { TransactionRecord } from "../domain/transaction.ts"
import type { AccountId } from "../domain/ids.ts"
import { saoPauloDate } from "../domain/time.ts"
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
    const bolepix = yield* Bolepix

    /**
     * A PIX on a bolepix's due-date charge (docs/boleto.md "Bolepix"), the boleto locked. PENDING: it settles
     * the boleto with the parts its terms give for the day paid (the PSP's cobv asked that day's amount; what
     * was paid stands, as a bank's amount does). Already settled by the barcode, no longer payable, or paid
     * after its last payable day (its PSP should have refused it): it is recorded as a second payment and
     * returned after the commit.
     */
    const onBoleto = fn("PixReceipts.onBoleto")(function* (
      payment: ReceivedPix,
      accountId: AccountId,
      t: TransactionRecord
    ) {
      const charge = { accountId, transactionId: t.id }
      const boleto = t.details.boleto
      // Paid by its last payable instant: a boleto stays PENDING BOLETO_REPORT_DAYS longer only to hear of
      // payments made by then (docs/boleto.md "When a boleto expires"); a PIX after it is returned.
      const inTime = t.expiresAt === null || payment.paidAt.getTime() <= t.expiresAt.getTime()
      if (t.status === "PENDING" && boleto !== undefined && inTime) {
        yield* received.setOutcome(payment.endToEndId, "settled", charge)
        const parts = paymentParts(t.amount, boleto.dueDate, boleto.terms, saoPauloDate(payment.paidAt), payment.amount)
        yield* lifecycle
          .apply(accountId, t, "pay", { paidAt: payment.paidAt, details: { payment: { ...parts, rail: "pix" } } })
          .pipe(Effect.orDie)
        return { result: "settled" as const }
      }
      yield* received.setOutcome(payment.endToEndId, "returned", charge)
      const id = yield* bolepix.pixAfterSettled(accountId, t, payment)
      yield* Effect.logWarning("PIX on a settled bolepix recorded to return", { endToEndId: payment.endToEndId })
      const txid = t.details.pix?.txid ?? payment.txid ?? ""
      return {
        result: "exception" as const,
        giveBack:
          id === null
            ? undefined
            : { id, transactionId: t.id, txid, endToEndId: payment.endToEndId, amount: payment.amount, accountId }
      }
    })

    const one = fn("PixReceipts.one")(function* (payment: ReceivedPix, source: ReceivedPixSource) {
      if (!(yield* received.claim(payment, source))) return { result: "duplicate" as const }
      const mode = yield* FiberRef.get(CurrentMode)
      if (mode === undefined) return yield* Effect.dieMessage("PIX payments received outside a mode")
      const charge = payment.txid === null ? Option.none() : yield* received.chargeOf(payment.txid, mode)
      if (Option.isNone(charge)) {
        yield* Effect.logWarning("PIX payment for no known charge recorded", { endToEndId: payment.endToEndId })
        return { result: "exception" as const }
      }
      const { accountId, transactionId } = charge.value
      const t = yield* Effect.flatten(transactions.findForUpdate(accountId, transactionId)).pipe(Effect.orDie)
      if (t.method === "BOLETO") return yield* onBoleto(payment, accountId, t)
      const outcome =
        payment.amount !== t.amountTotal ? "amount_mismatch" : t.status !== "PENDING" ? "not_payable" : "settled"
      yield* received.setOutcome(payment.endToEndId, outcome, charge.value)
      if (outcome !== "settled") {
        yield* Effect.logWarning(`PIX payment recorded as ${outcome}`, { endToEndId: payment.endToEndId })
        return { result: "exception" as const }
      }
      // PENDING → PAID is always legal for a PIX (domain/lifecycle.ts): a failure here is a defect.
      yield* lifecycle.apply(accountId, t, "pay", { paidAt: payment.paidAt }).pipe(Effect.orDie)
      return { result: "settled" as const }
    })

    return PixInbox.of({
      receive: (payments, source) =>
        Effect.gen(function* () {
          const counts = { settled: 0, duplicates: 0, exceptions: 0 }
          // One database transaction per payment: one bad payment does not hold back the batch's others.
          for (const payment of payments) {
            const outcome = yield* tx.run(one(payment, source))
            const { result } = outcome
            // A bolepix's second payment goes back once its record has committed (the devolução is keyed by it).
            if ("giveBack" in outcome && outcome.giveBack !== undefined)
              yield* bolepix.giveBackPix(outcome.giveBack.accountId, outcome.giveBack)
            if (result === "settled") counts.settled++
            else if (result === "duplicate") counts.duplicates++
            else counts.exceptions++
          }
          // The final statuses of refunds the PSP reports with the payments conclude PENDING refunds at once,
          // by the sweep's own code; a duplicate of the payment may carry them (docs/providers.md "Refunds").
          yield* refunds.concludeReported(payments.flatMap((p) => p.refunds))
          // And a bolepix's second PIX whose devolução was still processing when asked (docs/boleto.md "Bolepix").
          yield* bolepix.concludeReported(payments.flatMap((p) => p.refunds))
          return counts
        }).pipe(Effect.withSpan("PixReceipts.receive"))
    })
  })
)
