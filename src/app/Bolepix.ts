import { Effect, FiberRef, Option } from "effect"
import { CurrentMode } from "../ports/Modes.ts"
import type { AccountId, TransactionId } from "../domain/ids.ts"
import { type Posting, SYSTEM } from "../domain/ledger.ts"
import { isBolepix, type TransactionRecord } from "../domain/transaction.ts"
import { Ids } from "../ports/Ids.ts"
import { Ledger } from "../ports/Ledger.ts"
import { Tenancy } from "../ports/Modes.ts"
import { PixProvider, type PixRefundState } from "../ports/PixProvider.ts"
import {
  type AskAgainPolicy,
  type Rail,
  SecondPaymentRepo,
  type SecondPaymentStatus
} from "../ports/SecondPaymentRepo.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { fn } from "../spans.ts"

/**
 * When a second PIX left `returning` is asked of the PSP again (docs/boleto.md "Bolepix", the
 * `return_bolepix_pix` job every 5 minutes): 5 minutes after its last ask for the first 12 asks (an hour),
 * hourly after that, never given up (the devolução is keyed by the payment's id: asking again is the same
 * one). At most 50 a run, 4 at a time.
 */
export const ASK_AGAIN: AskAgainPolicy = { limit: 50, everySeconds: 300, slowAfter: 12, slowEverySeconds: 3600 }
const ASK_AGAIN_CONCURRENCY = 4

/**
 * A bolepix's second payment (docs/boleto.md "Bolepix"): the first payment, by either rail, settled the
 * boleto; one that comes later by the other rail is recorded once and given back, never settled. Its money
 * is the payer's: the postings touch only the gateway's books — received from the payers into what the
 * gateway owes out (`payouts`), and back when returned — so the merchant's balances and totals never see it.
 */
export class Bolepix extends Effect.Service<Bolepix>()("Bolepix", {
  effect: Effect.gen(function* () {
    const ledger = yield* Ledger
    const seconds = yield* SecondPaymentRepo
    const transactions = yield* TransactionRepo
    const tx = yield* Transactional
    const pix = yield* PixProvider
    const ids = yield* Ids
    const tenancy = yield* Tenancy

    const pair = (type: Posting["type"], amount: number, description: string): Array<Posting> => [
      { party: SYSTEM, book: "payers", type, amount: -amount, description },
      { party: SYSTEM, book: "payouts", type, amount, description }
    ]

    /** In the caller's database transaction, the transaction locked: the id, or null when already recorded. */
    const record = fn("Bolepix.record")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      payment: { readonly rail: Rail; readonly reference: string; readonly amount: number; readonly paidAt: Date },
      status: SecondPaymentStatus
    ) {
      const id = yield* ids.next
      if (!(yield* seconds.record(accountId, { id, transactionId: t.id, ...payment, status }))) return null
      yield* ledger.post(accountId, {
        key: `second_payment:${id}`,
        transactionId: t.id,
        withdrawalId: null,
        postings: pair("second_payment", payment.amount, `bolepix second payment (${payment.rail}), owed to the payer`)
      })
      return id
    })

    const returned = fn("Bolepix.returned")(function* (
      accountId: AccountId,
      transactionId: TransactionId,
      id: string,
      amount: number
    ) {
      yield* tx.run(
        Effect.zipRight(
          seconds.setStatus(accountId, id, "returned"),
          ledger.post(accountId, {
            key: `second_payment_return:${id}`,
            transactionId,
            withdrawalId: null,
            postings: pair("second_payment_return", -amount, "bolepix second payment returned to the payer")
          })
        )
      )
    })

    /**
     * The PSP's final answer on a second PIX's devolução, under its row lock: still `returning`, RETURNED closes
     * it (postings, once) and NOT_RETURNED leaves it `to_return` for an operator; already concluded (the PSP's
     * notice, the job, or an operator after NOT_RETURNED), nothing changes. Answers its status after.
     */
    const conclude = (id: string, answer: "RETURNED" | "NOT_RETURNED") =>
      tx.run(
        Effect.gen(function* () {
          const found = yield* seconds.findForUpdate(id)
          if (Option.isNone(found)) return null
          const second = found.value
          if (second.status !== "returning") return second.status
          if (answer === "RETURNED") {
            yield* returned(second.accountId, second.transactionId, second.id, second.amount)
            return "returned" as const
          }
          yield* seconds.setStatus(second.accountId, second.id, "to_return")
          return "to_return" as const
        })
      )

    /**
     * The PIX devolução of a second payment, keyed by its id (a retry is the same devolução). RETURNED closes
     * it; NOT_RETURNED leaves it `to_return` for an operator; PROCESSING or the PSP unreachable leave it
     * `returning`, asked again by the `return_bolepix_pix` job (`askAgain`; docs/boleto.md "Bolepix").
     */
    const giveBackPix = fn("Bolepix.giveBackPix")(function* (
      accountId: AccountId,
      second: {
        readonly id: string
        readonly transactionId: TransactionId
        readonly txid: string
        readonly endToEndId: string
        readonly amount: number
      }
    ) {
      // Asked of the PSP of the boleto's tenant's mode: a PSP's notice reaches us outside any tenant.
      const answer = yield* Effect.either(
        pix
          .refund({
            txid: second.txid,
            endToEndId: second.endToEndId,
            refundId: second.id,
            amount: second.amount
          })
          .pipe(Tenancy.within(accountId), Effect.provideService(Tenancy, tenancy))
      )
      if (answer._tag === "Left") {
        yield* Effect.logWarning("bolepix second PIX not returned yet", { id: second.id, error: answer.left.message })
        return "returning" as const
      }
      if (answer.right.status === "PROCESSING") return "returning" as const
      return (yield* conclude(second.id, answer.right.status)) ?? ("returning" as const)
    })

    return {
      /**
       * A PIX paid on the due-date charge of a bolepix no longer PENDING (paid by its barcode, or expired):
       * recorded as `returning`, in the caller's database transaction; `giveBackPix` returns it after the commit.
       */
      pixAfterSettled: (
        accountId: AccountId,
        t: TransactionRecord,
        payment: { readonly endToEndId: string; readonly amount: number; readonly paidAt: Date }
      ) =>
        record(
          accountId,
          t,
          { rail: "pix", reference: payment.endToEndId, amount: payment.amount, paidAt: payment.paidAt },
          "returning"
        ),

      giveBackPix,

      /**
       * The `return_bolepix_pix` job: the second PIX still `returning` and due by `ASK_AGAIN` are claimed (each
       * by one worker only) and asked again with `giveBackPix`, the same devolução. One the PSP still has not
       * decided after `slowAfter` asks is logged as an error each time: an operator asks the PSP (it stays
       * `returning`, in `operator_queue{kind="bolepix_returning"}` and `bolepix returns`).
       */
      askAgain: fn("Bolepix.askAgain")(function* () {
        const due = yield* seconds.claimAskAgain(ASK_AGAIN)
        const outcomes = yield* Effect.forEach(
          due,
          (second) =>
            giveBackPix(second.accountId, second).pipe(
              Effect.tap((status) =>
                status === "returning" && second.askedAgain >= ASK_AGAIN.slowAfter
                  ? Effect.logError("bolepix second PIX still not returned: ask the PSP", {
                      id: second.id,
                      askedAgain: second.askedAgain
                    })
                  : Effect.void
              )
            ),
          { concurrency: ASK_AGAIN_CONCURRENCY }
        )
        const count = (status: SecondPaymentStatus) => outcomes.filter((o) => o === status).length
        return { asked: due.length, returned: count("returned"), toReturn: count("to_return") }
      }),

      /**
       * The bank reports the slip paid after the boleto was settled by its PIX: the bank's payment is recorded
       * `to_return` (the gateway owes it to the payer; an operator returns it by bank transfer). Locks the
       * transaction, so it is decided after any settlement in flight. Null when it is not that case; else the
       * record's id, null when this payment was recorded already. `reference` names the payment: a CNAB
       * retorno's occurrence (`<nosso número>:<code>:<day>`, as its fee is keyed), so the bank repeating it
       * records nothing and another liquidation is another payment; `barcode` for a bank that reports one
       * payment of a slip (the confirmation job's).
       */
      barcodeAfterSettled: fn("Bolepix.barcodeAfterSettled")(function* (
        accountId: AccountId,
        transactionId: TransactionId,
        slip: { readonly amount: number; readonly paidAt: Date },
        reference = "barcode"
      ) {
        return yield* tx.run(
          Effect.gen(function* () {
            const found = yield* transactions.findForUpdate(accountId, transactionId)
            if (Option.isNone(found)) return null
            const t = found.value
            if (!isBolepix(t) || t.details.payment?.rail !== "pix") return null
            const id = yield* record(
              accountId,
              t,
              { rail: "barcode", reference, amount: slip.amount, paidAt: slip.paidAt },
              "to_return"
            )
            return { id }
          })
        )
      }),

      /** The operator's list (`npm run cli -- bolepix returns`): every second payment not yet given back. */
      openReturns: (limit: number) => seconds.open(limit),

      /**
       * The operator gave a `to_return` payment back by hand (a bank transfer to the payer: docs/boleto.md
       * "Bolepix"): closed with its return posting, once. Already returned: nothing again. `returning` is the
       * PSP's devolução still undecided, refused here so the payer is never paid back twice.
       */
      returnedByHand: fn("Bolepix.returnedByHand")(function* (id: string) {
        return yield* tx.run(
          Effect.gen(function* () {
            const found = yield* seconds.findForUpdate(id)
            if (Option.isNone(found)) return { outcome: "unknown" as const }
            const second = found.value
            if (second.status === "returned") return { outcome: "already_returned" as const, second }
            if (second.status === "returning") return { outcome: "psp_deciding" as const, second }
            // The same close as a devolução's (its own transaction nests as a savepoint under the lock).
            yield* returned(second.accountId, second.transactionId, second.id, second.amount)
            return { outcome: "returned" as const, second: { ...second, status: "returned" as const } }
          })
        )
      }),

      /**
       * The final statuses of devoluções the PSP reports with its payments (the notice or the listing): a
       * second PIX's devolução answered PROCESSING when asked is concluded here, `RETURNED` → `returned`
       * (postings), `NOT_RETURNED` → `to_return` for an operator. Reported again, it changes nothing.
       */
      concludeReported: fn("Bolepix.concludeReported")(function* (reported: ReadonlyArray<PixRefundState>) {
        // The notice's PSP serves one mode: only a devolução of that mode is its to conclude.
        const mode = yield* FiberRef.get(CurrentMode)
        if (mode === undefined) return yield* Effect.dieMessage("PIX devoluções concluded outside a mode")
        for (const r of reported) {
          if (r.status === "PROCESSING") continue
          // Most reported devoluções are refunds' (or already concluded): only a `returning` one is locked.
          if (Option.isNone(yield* seconds.findReturning(r.refundId, mode))) continue
          yield* conclude(r.refundId, r.status)
        }
      }),

      ofTransaction: (accountId: AccountId, transactionId: TransactionId) =>
        seconds.ofTransaction(accountId, transactionId)
    }
  })
}) {}
