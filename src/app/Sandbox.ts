import type { TransactionId } from "../domain/ids.ts"
import type { AccountId, WithdrawalId } from "../domain/ids.ts"
import { Clock, Effect, FiberRef, Option } from "effect"
import { CurrentMode } from "../ports/Modes.ts"
import { amountDue } from "../domain/chargeTerms.ts"
import { saoPauloDate } from "../domain/time.ts"
import { Conflict, Disabled, NotFound, ValidationFailed } from "../domain/errors.ts"
import { transition } from "../domain/lifecycle.ts"
import { AppConfig } from "../config/AppConfig.ts"
import { SandboxBank } from "../ports/BoletoProvider.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { type ChargebackStage, Disputes, type MedStage } from "./Disputes.ts"
import { Payments } from "./Payments.ts"
import { Settlement } from "./Settlement.ts"
import { fn } from "../spans.ts"
import { randomBytes } from "node:crypto"
import { PixInbox } from "../ports/ReceivedPixRepo.ts"
import { WithdrawalRepo } from "../ports/WithdrawalRepo.ts"
import type { TransactionRecord } from "../domain/transaction.ts"
import { isBolepix } from "../domain/transaction.ts"

/**
 * CONTRACT §7 sandbox: act as the buyer. A PIX is paid at once; a boleto is paid at the sandbox bank
 * and confirmed later by the boleto confirmation job, the path a real bank's settlement takes.
 */
export class Sandbox extends Effect.Service<Sandbox>()("Sandbox", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const transactions = yield* TransactionRepo
    const settlement = yield* Settlement
    const bank = yield* SandboxBank
    const scheduler = yield* JobScheduler
    const tx = yield* Transactional
    const disputes = yield* Disputes
    const payments = yield* Payments
    const inbox = yield* PixInbox
    const withdrawals = yield* WithdrawalRepo

    // Acting as the buyer is test mode's alone: with a live key these routes do not exist (404), as
    // with SANDBOX_ENABLED=false (docs/decisions.md "Test and live modes").
    const enabled = Effect.flatMap(FiberRef.get(CurrentMode), (mode) =>
      config.sandboxEnabled && mode === "test" ? Effect.void : Effect.fail(new Disabled())
    )
    const find = (accountId: AccountId, id: TransactionId) =>
      Effect.flatMap(
        transactions.find(accountId, id),
        Option.match({
          onNone: () => Effect.fail(new NotFound({ message: "transaction not found" })),
          onSome: Effect.succeed
        })
      )

    /**
     * The buyer pays a bolepix's QR code: the PSP's notice of it, handed to the same inbox a live PSP's
     * notices reach (settles once; returned when the boleto was already settled by its barcode).
     */
    const payBolepixByPix = fn("Sandbox.payBolepixByPix")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      at: { readonly date?: string | undefined; readonly amount?: number | undefined }
    ) {
      const boleto = t.details.boleto
      const pix = t.details.pix
      if (boleto === undefined || pix === undefined) {
        return yield* ValidationFailed.one("rail", "rail=pix pays a bolepix (a boleto issued with pix: true)")
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      const paidOn = at.date ?? saoPauloDate(now)
      const paidAt = at.date === undefined ? now : new Date(`${paidOn}T12:00:00-03:00`)
      const amount = at.amount ?? amountDue(t.amount, boleto.dueDate, boleto.terms, paidOn).total
      // An SPI end-to-end id's shape: E + the payer PSP's ISPB (none here) + minute + 11 random characters.
      const stamp = paidAt.toISOString().replace(/\D/g, "").slice(0, 12)
      const endToEndId = `E99999999${stamp}${randomBytes(8).toString("hex").slice(0, 11)}`
      yield* inbox.receive([{ endToEndId, txid: pix.txid, amount, paidAt, refunds: [] }], "webhook")
      return { settled: true, transaction: yield* find(accountId, t.id) }
    })

    return {
      pay: fn("Sandbox.pay")(function* (
        accountId: AccountId,
        id: TransactionId,
        at: {
          readonly date?: string | undefined
          readonly amount?: number | undefined
          readonly rail?: "barcode" | "pix" | undefined
        } = {}
      ) {
        yield* enabled
        const t = yield* find(accountId, id)
        if (at.rail === "pix") return yield* payBolepixByPix(accountId, t, at)
        // The move the buyer's payment will make must be legal now (PENDING PIX or boleto); a bolepix its
        // PIX settled may still be paid at the bank: a second payment, recorded and returned (docs/boleto.md).
        if (!(isBolepix(t) && t.details.payment?.rail === "pix")) yield* transition(t.status, t.method, "pay")
        if (t.method === "PIX")
          return { settled: true, transaction: yield* settlement.markPaid(accountId, id, new Date()) }
        // A boleto is paid on a day (default today) for an amount (default what its terms ask that day).
        const paidOn = at.date ?? saoPauloDate(new Date(yield* Clock.currentTimeMillis))
        // A bank takes no payment after the slip's last payable day ("Não receber após"); the charge stays
        // PENDING a few business days more only to hear of one made by then (docs/boleto.md "When a
        // boleto expires").
        if (t.expiresAt !== null && paidOn > saoPauloDate(t.expiresAt)) {
          return yield* new Conflict({
            code: "not_payable",
            message: `the bank takes no payment of this boleto after ${saoPauloDate(t.expiresAt)}`
          })
        }
        const boleto = t.details.boleto
        const amount =
          at.amount ??
          (boleto === undefined ? t.amount : amountDue(t.amount, boleto.dueDate, boleto.terms, paidOn).total)
        yield* tx.run(Effect.zipRight(bank.pay(t.id, amount, paidOn), scheduler.confirmBoletosSoon))
        return { settled: false, transaction: t }
      }),
      /** CONTRACT-v1 §10: the acquirer's chargeback notification, stage by stage. */
      chargeback: fn("Sandbox.chargeback")(function* (accountId: AccountId, id: TransactionId, stage: ChargebackStage) {
        yield* enabled
        return yield* disputes.chargeback(accountId, id, stage)
      }),
      /** CONTRACT-v1 §10: the PSP's MED (Mecanismo Especial de Devolução) notification, stage by stage. */
      med: fn("Sandbox.med")(function* (accountId: AccountId, id: TransactionId, stage: MedStage) {
        yield* enabled
        return yield* disputes.med(accountId, id, stage)
      }),
      /** Makes the transaction's pending receivables available now (not its reserve). */
      settle: fn("Sandbox.settle")(function* (accountId: AccountId, id: TransactionId) {
        yield* enabled
        yield* find(accountId, id)
        yield* settlement.settleTransaction(accountId, id)
        return yield* find(accountId, id)
      }),
      expire: fn("Sandbox.expire")(function* (accountId: AccountId, id: TransactionId) {
        yield* enabled
        const t = yield* find(accountId, id)
        // A real boleto stays PENDING past its last payable day to hear of a payment made by then (docs/boleto.md
        // "When a boleto expires"): one the sandbox bank has taken settles at its next confirmation, so the slip
        // is not ended now, or the buyer's money would be recorded nowhere (docs/decisions.md "Sandbox").
        if (t.method === "BOLETO" && (yield* bank.holdsPaymentOf(t.id))) {
          return yield* new Conflict({
            code: "invalid_state",
            message: "the sandbox bank has taken a payment of this boleto; it settles at the next confirmation"
          })
        }
        return yield* settlement.expire(accountId, id)
      }),
      /** CONTRACT-v1 §9: decide a charge in review as the antifraud's analyst would. */
      antifraud: fn("Sandbox.antifraud")(function* (
        accountId: AccountId,
        id: TransactionId,
        decision: "approve" | "reject"
      ) {
        yield* enabled
        return yield* payments.decideReview(accountId, id, decision)
      }),
      /**
       * The bank day comes now for a pending withdrawal. A withdrawal is a TED: asked on a weekend or a
       * bank holiday it waits for 00:00 of the next business day (docs/calendar.md), and its bank job is
       * moved to now, as that morning would. A withdrawal no longer pending is answered as it is.
       */
      sendWithdrawal: fn("Sandbox.sendWithdrawal")(function* (accountId: AccountId, id: WithdrawalId) {
        yield* enabled
        const found = yield* withdrawals.find(accountId, id)
        if (Option.isNone(found)) return yield* Effect.fail(new NotFound({ message: "withdrawal not found" }))
        if (found.value.status === "pending") {
          // The job's key replaces its run time. A job already running makes a second one, which asks the
          // bank under the same withdrawal id (the Payouts port's idempotency key) and records nothing twice.
          yield* scheduler.payWithdrawalAt(accountId, id, new Date(yield* Clock.currentTimeMillis))
        }
        return found.value
      })
    }
  })
}) {}
