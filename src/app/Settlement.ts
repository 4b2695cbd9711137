import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { paymentParts } from "../domain/chargeTerms.ts"
import { type BankPaid, bankPaymentParts } from "../domain/bankPayment.ts"
import { saoPauloDate } from "../domain/time.ts"
import { Transactional } from "../ports/Transactional.ts"
import { PixProvider } from "../ports/PixProvider.ts"
import { PixInbox } from "../ports/ReceivedPixRepo.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Books } from "./Books.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { withSpan } from "../spans.ts"
import { dueChargeOutlived } from "../domain/transaction.ts"

/**
 * What happens to a transaction's money after the charge. A PENDING PIX or boleto is paid (PAID,
 * order PAID) or its deadline passes (v2: FAILED; v1: CANCELLED; the order EXPIRED): each is one
 * lifecycle move, so a sandbox call and a job racing each other apply only once. A paid sale's
 * receivables become available at their dates (CONTRACT-v1 §7).
 */
export class Settlement extends Effect.Service<Settlement>()("Settlement", {
  effect: Effect.gen(function* () {
    const lifecycle = yield* Lifecycle
    const transactions = yield* TransactionRepo
    const books = yield* Books
    const tx = yield* Transactional
    const pix = yield* PixProvider
    const inbox = yield* PixInbox

    /**
     * A PIX charge is withdrawn at the PSP before it expires here, so it can no longer be paid; one paid
     * meanwhile is settled by its payment instead, and the expiry then finds it PAID (IllegalTransition).
     * The PSP unreachable: a defect, so the expiry job fails and is retried later. Paid by the PSP's word but
     * with no payment listed under it (`CobCompleta.pix` is optional), there is nothing to settle it with
     * yet: expired here, the buyer's money would stay with the gateway and the sale FAILED. So it is a
     * defect too, the job retried while the notice or `reconcile_pix`'s listing brings the payment.
     */
    const withdrawPix = (accountId: AccountId, transactionId: TransactionId) =>
      Effect.gen(function* () {
        const found = yield* transactions.find(accountId, transactionId)
        if (found._tag === "None" || found.value.method !== "PIX" || found.value.status !== "PENDING") return
        const txid = found.value.details.pix?.txid
        if (txid === undefined) return
        const state = yield* pix.cancelCharge(txid).pipe(Effect.orDie)
        if (state.status === "PAID" && state.payments.length === 0)
          return yield* Effect.dieMessage(`PIX charge ${txid} is paid at the PSP, which lists no payment for it yet`)
        if (state.status === "PAID") yield* inbox.receive(state.payments, "reconciliation")
      })

    return {
      /**
       * The `withdraw_due_charge` job (docs/boleto.md "Bolepix"): a bolepix whose boleto was settled by its
       * barcode, expired or was cancelled has its `cobv` withdrawn at the PSP, so its QR can no longer be
       * paid. Asking again is the same withdrawal. Paid meanwhile, the PSP's payments go to the inbox, which
       * records each as a second payment and returns it (once by its end-to-end id, whichever of the notice,
       * the listing or this job brings it). The PSP unreachable: a defect, so the job is retried with back-off;
       * a refusal on its merits (a charge the PSP does not know) is logged and left, as asking again cannot help.
       */
      withdrawDueCharge: (accountId: AccountId, transactionId: TransactionId) =>
        Effect.gen(function* () {
          const found = yield* transactions.find(accountId, transactionId)
          if (Option.isNone(found)) return "none" as const
          const t = found.value
          const txid = t.details.pix?.txid
          // Only a bolepix that left PENDING other than by its PIX (a retry after that, too).
          if (!dueChargeOutlived(t) || txid === undefined) return "none" as const
          const state = yield* pix.withdrawDueCharge(txid).pipe(
            Effect.catchTag("Unprocessable", (e) =>
              Effect.as(
                Effect.logWarning("bolepix due-date charge not withdrawn: the PSP refused", {
                  transactionId,
                  code: e.code
                }),
                null
              )
            ),
            Effect.orDie
          )
          if (state === null) return "refused" as const
          // Named by the charge's txid when the PSP's item leaves it out, so the inbox finds the boleto.
          if (state.status === "PAID")
            yield* inbox.receive(
              state.payments.map((p) => ({ ...p, txid: p.txid ?? txid })),
              "reconciliation"
            )
          return state.status
        }).pipe(withSpan("Settlement.withdrawDueCharge")),

      /**
       * Paid at `paidAt`; a bank's report of a boleto (what was paid, on which day) records the payment
       * and its parts — principal, fine, interest, discount, abatement — which the sale posts.
       */
      markPaid: (
        accountId: AccountId,
        transactionId: TransactionId,
        paidAt: Date,
        report?: {
          readonly amount: number
          readonly paidOn?: string | null | undefined
          /** The parts as the bank reported them (a CNAB retorno); otherwise computed from the terms. */
          readonly bank?: BankPaid | undefined
        }
      ) =>
        Effect.gen(function* () {
          if (report === undefined) return yield* lifecycle.move(accountId, transactionId, "pay", { paidAt })
          const found = yield* transactions.find(accountId, transactionId)
          const boleto = Option.isSome(found) ? found.value.details.boleto : undefined
          if (Option.isNone(found) || boleto === undefined) {
            return yield* lifecycle.move(accountId, transactionId, "pay", { paidAt })
          }
          const t = found.value
          const paidOn = report.paidOn ?? saoPauloDate(paidAt)
          const parts =
            report.bank === undefined
              ? paymentParts(t.amount, boleto.dueDate, boleto.terms, paidOn, report.amount)
              : bankPaymentParts(t.amount, boleto.dueDate, boleto.terms, paidOn, report.bank)
          // A bolepix records which rail paid first (docs/boleto.md "Bolepix").
          const payment = t.details.pix === undefined ? parts : { ...parts, rail: "barcode" as const }
          return yield* lifecycle.move(accountId, transactionId, "pay", { paidAt, details: { payment } })
        }).pipe(withSpan("Settlement.markPaid")),

      expire: (accountId: AccountId, transactionId: TransactionId) =>
        withdrawPix(accountId, transactionId).pipe(
          Effect.zipRight(
            lifecycle.moveBy(accountId, transactionId, (t) => (t.origin === "v1" ? "cancel" : "expire"), {
              declineCode: "expired"
            })
          ),
          withSpan("Settlement.expire")
        ),

      /** The settlement job of one receivable: posts once however often it runs. */
      settleReceivable: (accountId: AccountId, receivableId: string) =>
        tx.retrying(books.settle(accountId, receivableId)).pipe(withSpan("Settlement.settleReceivable")),

      /** Makes a transaction's pending receivables available now (sandbox). */
      settleTransaction: (accountId: AccountId, transactionId: TransactionId) =>
        tx.retrying(books.settleTransaction(accountId, transactionId)).pipe(withSpan("Settlement.settleTransaction"))
    }
  })
}) {}
