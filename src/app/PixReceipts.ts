import { Effect, FiberRef, Layer, Option } from "effect"
import { Ledger } from "../ports/Ledger.ts"
import { CurrentMode } from "../ports/Modes.ts"
import { PixInbox, ReceivedPixRepo, type ReceivedPixRecord, type ReceivedPixSource } from "../ports/ReceivedPixRepo.ts"
import type { ReceivedPix } from "../ports/PixProvider.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { Bolepix } from "./Bolepix.ts"
import { paymentParts } from "../domain/chargeTerms.ts"
import type { TransactionRecord } from "../domain/transaction.ts"
import type { AccountId } from "../domain/ids.ts"
import { entry, type Posting, SYSTEM } from "../domain/ledger.ts"
import { saoPauloDate } from "../domain/time.ts"
import { Refunds } from "./Refunds.ts"
import { fn } from "../spans.ts"

/**
 * A PIX received for a charge of ours and not applied to it (`not_payable`, `amount_mismatch`) is the payer's
 * money the PSP credited to the gateway, owed back (docs/providers.md "The receiver"): posted on the gateway's
 * books only, under its transaction and tenant, as a boleto payment not applied is — payers −amount, payouts
 * +amount when received (`pix_payment_to_return`), the reverse when an operator marks it handled
 * (`pix_payment_returned`) —, so the merchant's balances and totals never see it. One naming no charge has no
 * tenant to post under: it waits in the queue alone.
 */
const owedBack = (
  type: "pix_payment_to_return" | "pix_payment_returned",
  amount: number,
  description: string
): Array<Posting> => [
  { party: SYSTEM, book: "payers", type, amount: -amount, description },
  { party: SYSTEM, book: "payouts", type, amount, description }
]

/**
 * The keys of its entries, once each: received (and owed again after the n-th mark undone), and returned by
 * the n-th mark (counted from 0). A PSP repeating its notice, or an operator's second mark, posts nothing more.
 */
const toReturnKey = (endToEndId: string, n: number) =>
  n === 0 ? `pix_payment_to_return:${endToEndId}` : `pix_payment_to_return:${endToEndId}:${n}`
const returnedKey = (endToEndId: string, n: number) =>
  n === 0 ? `pix_payment_returned:${endToEndId}` : `pix_payment_returned:${endToEndId}:${n}`

/** Whether the payment is on the gateway's books to return: a charge of ours that it did not apply. */
const owedOnTheBooks = (record: ReceivedPixRecord) =>
  record.accountId !== null && (record.outcome === "not_payable" || record.outcome === "amount_mismatch")

/**
 * The entry `key` of a payment owed on the books (`record`), posted only when the entry it reverses
 * (`reversed`) was: a returned payment owed again, or its return. The keys make it once.
 */
const postReversing = (
  record: ReceivedPixRecord,
  reversed: string,
  key: string,
  type: "pix_payment_to_return" | "pix_payment_returned"
) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const { accountId, transactionId, amount, endToEndId } = record
    if (!(yield* ledger.posted(accountId!, reversed))) return
    const description =
      type === "pix_payment_returned"
        ? `PIX ${endToEndId} not applied, returned to the payer`
        : `PIX ${endToEndId} not applied, owed to the payer again`
    yield* ledger.post(
      accountId!,
      entry(key, { transactionId }, owedBack(type, type === "pix_payment_returned" ? -amount : amount, description))
    )
  })

/**
 * The operator's mark on a waiting PIX exception (`npm run cli -- pix handled`: docs/operations.md "What waits
 * for an operator"), and, for one owed on the gateway's books, its return posting, in the mark's database
 * transaction and under the row's lock: posted once, since a second mark is refused, and only when what it
 * reverses was posted (a payment received before the books had it posts nothing).
 */
export const markPixHandled = fn("PixReceipts.markHandled")(function* (endToEndId: string, note: string) {
  const received = yield* ReceivedPixRepo
  const tx = yield* Transactional
  return yield* tx.retrying(
    Effect.gen(function* () {
      const mark = yield* received.markHandled(endToEndId, note)
      if (mark._tag !== "Marked" || !owedOnTheBooks(mark.record)) return mark
      const n = (yield* received.marks(endToEndId)).filter((m) => m.action === "handled").length - 1
      yield* postReversing(mark.record, toReturnKey(endToEndId, n), returnedKey(endToEndId, n), "pix_payment_returned")
      return mark
    })
  )
})

/**
 * A mark undone (`npm run cli -- pix reopen`): the payment waits again, so what its mark posted as returned is
 * owed again on the books (the mark's return reversed, once), in the same database transaction.
 */
export const reopenPix = fn("PixReceipts.reopen")(function* (endToEndId: string, why: string) {
  const received = yield* ReceivedPixRepo
  const tx = yield* Transactional
  return yield* tx.retrying(
    Effect.gen(function* () {
      const reopen = yield* received.reopen(endToEndId, why)
      if (reopen._tag !== "Reopened" || !owedOnTheBooks(reopen.record)) return reopen
      const n = (yield* received.marks(endToEndId)).filter((m) => m.action === "reopened").length
      yield* postReversing(
        reopen.record,
        returnedKey(endToEndId, n - 1),
        toReturnKey(endToEndId, n),
        "pix_payment_to_return"
      )
      return reopen
    })
  )
})

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
    const ledger = yield* Ledger
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
        // The payer's money, received and owed back: on the gateway's books, with the outcome.
        yield* ledger.post(
          accountId,
          entry(
            toReturnKey(payment.endToEndId, 0),
            { transactionId },
            owedBack("pix_payment_to_return", payment.amount, `PIX not applied (${outcome}), owed to the payer`)
          )
        )
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
