import { type AccountId, RefundId, type TransactionId } from "../domain/ids.ts"
import { Clock, Effect, Either, FiberRef, Option, Schema } from "effect"
import { CurrentMode } from "../ports/Modes.ts"
import { Metrics } from "../ports/Metrics.ts"
import { Conflict, NotFound, Unprocessable, ValidationFailed } from "../domain/errors.ts"
import { isDisputeOpen, isRefundable, refundBase, type TransactionRecord } from "../domain/transaction.ts"
import { Acquirer } from "../ports/Acquirer.ts"
import { PixProvider, type PixRefundState, type PixRefundStatus } from "../ports/PixProvider.ts"
import { ReceivedPixRepo } from "../ports/ReceivedPixRepo.ts"
import { type Refund, RefundRepo } from "../ports/RefundRepo.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { Books } from "./Books.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { Tenancy } from "../ports/Modes.ts"
import { fn } from "../spans.ts"

/** How long a refund request waits for the PSP's final word on a PIX refund: 6 more asks, 500 ms apart. */
const PIX_REFUND_POLL = "500 millis"
const PIX_REFUND_POLLS = 6
/** A PIX refund still undecided this long after it was asked for is the reconciliation job's. */
export const PIX_REFUND_SWEEP_AFTER_MS = 30_000

/** A refund in the core's words: the whole remaining balance when `amount` is absent. */
export interface RefundCommand {
  readonly transactionId: TransactionId
  readonly amount?: number | undefined
  readonly reason?: string | undefined
}

export interface RefundResult {
  readonly transaction: TransactionRecord
  readonly reason: string | null
  readonly refundedAt: Date
}

/**
 * A refund, whatever interface asked. The amount is reserved on the transaction row (under its lock)
 * before the acquirer or PSP is asked, so concurrent refunds can never return more than was paid;
 * a failed provider call gives the reservation back.
 */
const isRefundId = Schema.is(RefundId)

/** A refund recorded FAILED, its money returned to the merchant; answered after the commit. */
const refundFailed = (transactionId: TransactionId) =>
  new Unprocessable({
    code: "refund_failed",
    message: "the refund could not be processed; nothing was refunded, try again",
    transactionId
  })

export class Refunds extends Effect.Service<Refunds>()("Refunds", {
  effect: Effect.gen(function* () {
    const tenancy = yield* Tenancy
    const transactions = yield* TransactionRepo
    const refunds = yield* RefundRepo
    const lifecycle = yield* Lifecycle
    const tx = yield* Transactional
    const acquirer = yield* Acquirer
    const pix = yield* PixProvider
    const received = yield* ReceivedPixRepo
    const metrics = yield* Metrics
    const books = yield* Books

    const reserve = fn("Refunds.reserve")(function* (accountId: AccountId, request: RefundCommand, refundId: RefundId) {
      const found = yield* transactions.findForUpdate(accountId, request.transactionId)
      if (Option.isNone(found)) return yield* new NotFound({ message: "transaction not found" })
      const t = found.value
      if (!isRefundable(t.status)) {
        return yield* new Conflict({
          code: t.status === "REFUNDED" ? "already_refunded" : "not_refundable",
          message:
            t.status === "REFUNDED"
              ? "transaction is already fully refunded"
              : isDisputeOpen(t.status)
                ? "a disputed transaction cannot be refunded until its dispute is won"
                : `a ${t.status} transaction cannot be refunded`
        })
      }
      // What the buyer paid: amount_total, or a boleto's payment with its charges (docs/boleto.md "Refunds").
      const base = refundBase(t)
      const remaining = base - t.refundedAmount - t.refundReserved
      if (remaining <= 0) {
        // Everything is refunded or being refunded right now.
        return yield* new Conflict({ code: "already_refunded", message: "nothing left to refund on this transaction" })
      }
      const amount = request.amount ?? remaining
      if (amount > remaining) {
        return yield* ValidationFailed.one("amount", `amount exceeds the refundable balance (${remaining})`)
      }
      if (t.method === "BOLETO" && amount !== base) {
        return yield* ValidationFailed.one(
          "amount",
          `amount must be the full amount paid (${base}) or omitted: BOLETO supports full refund only`
        )
      }
      // The money leaves the parties' balances now, under the locks (CONTRACT-v1 §7): a provider
      // that refunds can never find the merchant unable to pay.
      yield* books.takeRefund(accountId, t, refundId, amount)
      yield* refunds.insertPending(accountId, {
        id: refundId,
        transactionId: t.id,
        amount,
        reason: request.reason ?? null
      })
      yield* transactions.update(accountId, t.id, { refundReserved: t.refundReserved + amount })
      return { transaction: t, amount }
    })

    /**
     * The payment a PIX refund returns: the one that settled the charge, as recorded when it did. A charge
     * may have had other payments (a second payer of the same QR code, an amount that differed), and the
     * PSP lists them all under it in its own order: those wait for an operator, who returns them, and a
     * refund of the sale sent to one of them gave its payer the money twice and its buyer none, or was
     * refused as more than that payment. Null when none was recorded (a charge paid in the sandbox): the
     * PSP's payment of the charge then (docs/providers.md "Refunds").
     */
    const settlingPayment = (accountId: AccountId, transactionId: TransactionId) =>
      Effect.map(
        received.settlingPayment(accountId, transactionId),
        Option.match({ onNone: () => null, onSome: (payment) => payment.endToEndId })
      )

    /**
     * Asks the PSP again with the same refund id (idempotent: it answers the refund's state) until it is
     * final or PIX_REFUND_WAIT is over (docs/providers.md "Refunds").
     */
    const pixFinal = (t: TransactionRecord, endToEndId: string | null, refundId: RefundId, amount: number) => {
      const ask = pix.refund({ txid: t.details.pix?.txid ?? t.id, endToEndId, refundId, amount })
      return ask.pipe(
        Effect.flatMap((first) =>
          first.status !== "PROCESSING"
            ? Effect.succeed(first)
            : ask.pipe(
                Effect.delay(PIX_REFUND_POLL),
                Effect.repeat({ until: (s) => s.status !== "PROCESSING", times: PIX_REFUND_POLLS })
              )
        ),
        Effect.map((state) => state.status)
      )
    }

    /**
     * Returns the money through the rail it came by: RETURNED, NOT_RETURNED (nothing left the PSP), or
     * PROCESSING (a PIX refund the PSP has not decided yet). Boletos are refunded by bank transfer, by
     * hand (spec rule 3).
     */
    const giveBack = (
      accountId: AccountId,
      t: TransactionRecord,
      refundId: RefundId,
      amount: number
    ): Effect.Effect<Either.Either<PixRefundStatus, unknown>> => {
      switch (t.method) {
        case "CARD":
          return acquirer
            .refund({
              idempotencyKey: refundId,
              acquirerReference: t.acquirerReference ?? t.id,
              amount,
              acquirer: t.acquirer
            })
            .pipe(
              Effect.as("RETURNED" as const),
              // An acquirer that may have refunded and could not say so (its answer lost, and what it refunded
              // not read back): undecided, not refused. Recorded FAILED, the money went back to the merchant
              // while the buyer may have had it too, and a retry refunded it twice. It stays PENDING with its
              // money reserved, for an operator to conclude from the acquirer's records (docs/providers.md
              // "Known limits", `npm run cli -- refunds conclude`).
              Effect.catchIf(
                (e) => e.outcome === "unknown",
                (e) =>
                  Effect.as(
                    Effect.logWarning("card refund undecided: waits for an operator", { refundId, reason: e.message }),
                    "PROCESSING" as const
                  )
              ),
              Effect.either
            )
        case "PIX":
          return settlingPayment(accountId, t.id).pipe(
            Effect.flatMap((endToEndId) => pixFinal(t, endToEndId, refundId, amount)),
            // A PSP we could not reach or read may hold the devolução all the same (a PUT it committed before
            // the connection dropped): not "nothing was refunded", but undecided, like EM_PROCESSAMENTO — the
            // refund stays PENDING with its money reserved, and the PSP's notice or reconcile_pix (asking
            // again with the same id, which is safe) concludes it (docs/providers.md "Refunds").
            Effect.catchTag("ProviderUnavailable", (e) =>
              Effect.as(
                Effect.logWarning("PIX refund undecided: the PSP did not answer", e.message),
                "PROCESSING" as const
              )
            ),
            Effect.either
          )
        case "BOLETO":
          return Effect.succeed(Either.right("RETURNED" as const))
      }
    }

    const finish = fn("Refunds.finish")(function* (
      accountId: AccountId,
      transactionId: TransactionId,
      refundId: RefundId,
      amount: number,
      succeeded: boolean
    ) {
      // The row lock serialises this with a dispute opening or closing: whatever the status became
      // while the provider was asked, the refund it accepted is recorded as the provider answered.
      const t = yield* Effect.flatten(transactions.findForUpdate(accountId, transactionId)).pipe(Effect.orDie)
      // Under that lock, a refund the other path concluded meanwhile (the PSP's notice, the sweep, the
      // request's own wait) is answered as recorded, never concluded twice (docs/providers.md "Refunds").
      const recorded = yield* refunds.find(accountId, refundId)
      if (recorded !== undefined && recorded.status !== "PENDING") {
        if (recorded.status === "FAILED") {
          // Concluded "not refunded" (by an operator) though the provider now says it refunded: the buyer has
          // the money and the books give it to the merchant. Never expected (an operator concludes only a
          // refund past its request's life); said loudly, as only a person can settle it with the merchant.
          if (succeeded)
            yield* Effect.logError("refund recorded FAILED but the provider says it refunded", {
              accountId,
              refundId,
              amount
            })
          return null
        }
        return {
          transaction: t,
          reason: recorded.reason,
          refundedAt: recorded.completedAt ?? new Date(yield* Clock.currentTimeMillis)
        }
      }
      const refund = yield* refunds.finish(accountId, refundId, succeeded ? "SUCCEEDED" : "FAILED")
      if (!succeeded) {
        yield* books.returnRefund(accountId, t, refundId)
        const released = yield* transactions.update(accountId, t.id, { refundReserved: t.refundReserved - amount })
        // The dispute that opened meanwhile left this money out; now it is not refunded, it holds it.
        if (isDisputeOpen(t.status)) yield* books.holdForDispute(accountId, released, refundId, amount)
        // Committed as failed, money returned: the caller answers after the commit.
        return null
      }
      yield* books.confirmRefund(accountId, t, refundId)
      // Through the lifecycle: the status move (none under a dispute that opened meanwhile), the
      // order's cancellation on a full refund and the event, in this database transaction.
      const updated = yield* lifecycle.refunded(accountId, t, {
        refundedAmount: t.refundedAmount + amount,
        refundReserved: t.refundReserved - amount
      })
      return {
        transaction: updated,
        reason: refund.reason,
        refundedAt: refund.completedAt ?? new Date(yield* Clock.currentTimeMillis)
      }
    })

    /** Records the PSP's final word on a refund left PENDING: the ledger follows it. */
    const conclude = fn("Refunds.conclude")(function* (
      accountId: AccountId,
      transactionId: TransactionId,
      refundId: RefundId,
      amount: number,
      status: PixRefundStatus
    ) {
      if (status === "PROCESSING") return false
      const pending = yield* refunds.find(accountId, refundId)
      if (pending?.status !== "PENDING") return false
      yield* tx.retrying(finish(accountId, transactionId, refundId, amount, status === "RETURNED"))
      return true
    })

    /** What a reserved refund answers once its provider has answered `given`: its outcome, recorded. */
    const outcome = fn("Refunds.outcome")(function* (
      accountId: AccountId,
      transaction: TransactionRecord,
      refundId: RefundId,
      amount: number,
      reason: string | null,
      given: Either.Either<PixRefundStatus, unknown>
    ) {
      if (Either.isRight(given) && given.right === "PROCESSING") {
        // Accepted by the PSP, not decided yet: the money stays reserved (out of the merchant's balance)
        // and the refund PENDING; the status change, its event and the ledger follow the PSP's final word
        // (reconcilePending). The answer shows the transaction as it is now (docs/providers.md "Refunds").
        metrics.refunds.inc({
          method: transaction.method,
          kind: amount === refundBase(transaction) ? "full" : "partial"
        })
        return {
          transaction: yield* Effect.flatten(transactions.find(accountId, transaction.id)).pipe(Effect.orDie),
          reason,
          refundedAt: new Date(yield* Clock.currentTimeMillis)
        } satisfies RefundResult
      }
      const succeeded = Either.isRight(given) && given.right === "RETURNED"
      const result = yield* tx.retrying(finish(accountId, transaction.id, refundId, amount, succeeded))
      if (result === null) return yield* refundFailed(transaction.id)
      metrics.refunds.inc({
        method: transaction.method,
        kind: amount === refundBase(transaction) ? "full" : "partial"
      })
      return result satisfies RefundResult
    })

    /**
     * A refund id this account already recorded: a retry that took a dead request's Idempotency-Key claim
     * over, which keeps the claim's refund id (docs/decisions.md "Refunds and withdrawals resumed"). What
     * the first attempt recorded is resumed, never reserved, posted or asked of the provider as a new
     * refund: reserving again found the transaction refunded (409) or clashed with the id (500).
     */
    const resume = fn("Refunds.resume")(function* (accountId: AccountId, earlier: Refund) {
      const t = yield* Effect.flatten(transactions.find(accountId, earlier.transactionId)).pipe(Effect.orDie)
      switch (earlier.status) {
        case "SUCCEEDED":
          // Answered as the first attempt was: the transaction (as it is now) and the refund's own time.
          return {
            transaction: t,
            reason: earlier.reason,
            refundedAt: earlier.completedAt ?? new Date(yield* Clock.currentTimeMillis)
          } satisfies RefundResult
        case "FAILED":
          // Recorded failed, its money returned: the first attempt answered this refusal.
          return yield* refundFailed(t.id)
        case "PENDING": {
          // Reserved, and the provider perhaps asked, when the first attempt died: driven to its outcome.
          // A PSP is asked again with the same id (safe: the same devolução, docs/providers.md "Refunds").
          // A card refund is not sent again: the acquirers' refunds carry no idempotency key and the port
          // cannot ask what was refunded (docs/providers.md "Known limits"), so resending could refund
          // twice. Its outcome is unknown: it stays PENDING, its money reserved, and waits for an operator
          // as any undecided card refund does (`giveBack`).
          const given =
            t.method === "CARD"
              ? yield* Effect.as(
                  Effect.logWarning("card refund resumed after its request died: undecided, waits for an operator", {
                    refundId: earlier.id,
                    transactionId: t.id
                  }),
                  Either.right("PROCESSING" as const)
                )
              : yield* giveBack(accountId, t, earlier.id, earlier.amount)
          return yield* outcome(accountId, t, earlier.id, earlier.amount, earlier.reason, given)
        }
      }
    })

    return {
      refund: fn("Refunds.refund")(function* (accountId: AccountId, request: RefundCommand, refundId: RefundId) {
        const earlier = yield* refunds.find(accountId, refundId)
        if (earlier !== undefined) return yield* resume(accountId, earlier)
        const { amount, transaction } = yield* tx.retrying(reserve(accountId, request, refundId))
        const given = yield* giveBack(accountId, transaction, refundId, amount)
        return yield* outcome(accountId, transaction, refundId, amount, request.reason ?? null, given)
      }),
      /**
       * PIX refunds still PENDING a while after they were asked for: the PSP is asked again (same id) and
       * a final status is recorded — DEVOLVIDO refunds, NAO_REALIZADO gives the money back to the merchant.
       */
      /**
       * Final statuses the PSP reports in a payment notice's `devolucoes`: a PENDING refund of ours among
       * them is concluded at once, as `reconcilePending` would (which then finds it concluded). Others
       * (already concluded, still processing, or not ours) change nothing.
       */
      concludeReported: fn("Refunds.concludeReported")(function* (reported: ReadonlyArray<PixRefundState>) {
        let concluded = 0
        // The notice's PSP serves one mode: only a refund of that mode is its to conclude.
        const mode = yield* FiberRef.get(CurrentMode)
        if (mode === undefined) return yield* Effect.dieMessage("PIX refunds concluded outside a mode")
        for (const r of reported) {
          if (r.status === "PROCESSING" || !isRefundId(r.refundId)) continue
          const pending = yield* refunds.findPendingPix(r.refundId, mode)
          if (pending === undefined) continue
          const done = yield* conclude(
            pending.accountId,
            pending.transactionId,
            pending.id,
            pending.amount,
            r.status
          ).pipe(
            Effect.catchTag("IllegalTransition", (e) =>
              Effect.as(Effect.logWarning("PIX refund not concluded", { reason: e.message }), false)
            )
          )
          if (done) concluded++
        }
        return concluded
      }),
      /** Card refunds whose outcome is unknown, every account's, oldest first (the operator's list). */
      pendingCard: (limit: number) => refunds.pendingCard(limit),
      /**
       * An operator's word on an undecided card refund, read from the acquirer's records: refunded (the
       * refund SUCCEEDED, its postings confirmed, the transaction and its event follow) or not (FAILED, the
       * money back to the merchant). Once: a refund no longer PENDING is `NotPending`.
       */
      concludeCard: fn("Refunds.concludeCard")(function* (refundId: RefundId, refunded: boolean) {
        const pending = yield* refunds.findPendingCard(refundId)
        if (pending === undefined) return { _tag: "NotPending" } as const
        // Decided under the transaction's row lock: of two operators concluding it at once, the second finds
        // it concluded and is told so (NotPending), not shown the first one's outcome as its own.
        const applied = yield* tx.retrying(
          Effect.gen(function* () {
            yield* Effect.flatten(transactions.findForUpdate(pending.accountId, pending.transactionId)).pipe(
              Effect.orDie
            )
            const now = yield* refunds.find(pending.accountId, pending.id)
            if (now?.status !== "PENDING") return false
            yield* finish(pending.accountId, pending.transactionId, pending.id, pending.amount, refunded)
            return true
          })
        )
        if (!applied) return { _tag: "NotPending" } as const
        const refund = yield* refunds.find(pending.accountId, pending.id)
        return { _tag: "Concluded", refund: refund! } as const
      }),
      reconcilePending: fn("Refunds.reconcilePending")(function* () {
        const olderThan = new Date((yield* Clock.currentTimeMillis) - PIX_REFUND_SWEEP_AFTER_MS)
        let concluded = 0
        for (const r of yield* refunds.pendingPix(olderThan, 100)) {
          // Asked of the PSP of the refund's tenant's mode (docs/providers.md "Test and live modes"), for the
          // payment that settled the charge, as the request asked.
          const endToEndId = yield* settlingPayment(r.accountId, r.transactionId)
          const asked = { txid: r.txid ?? r.transactionId, endToEndId, refundId: r.id, amount: r.amount }
          const status = yield* pix.refund(asked).pipe(
            Effect.map((s) => s.status),
            Tenancy.within(r.accountId),
            Effect.provideService(Tenancy, tenancy),
            // Refused on its merits (no devolução of this id, and the PSP will not make it): not returned, as
            // the request's own answer would have said; unreachable: asked again at the next sweep.
            Effect.catchTag("Unprocessable", (e) =>
              Effect.as(Effect.logWarning("PIX refund refused by the PSP", e.message), "NOT_RETURNED" as const)
            ),
            Effect.catchAll((e) =>
              Effect.as(Effect.logWarning("PIX refund not reconciled", { reason: e._tag }), "PROCESSING" as const)
            )
          )
          const done = yield* conclude(r.accountId, r.transactionId, r.id, r.amount, status).pipe(
            Effect.catchTag("IllegalTransition", (e) =>
              Effect.as(Effect.logWarning("PIX refund not concluded", { reason: e.message }), false)
            )
          )
          if (done) concluded++
        }
        return concluded
      })
    }
  })
}) {}
