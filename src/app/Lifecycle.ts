import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { NotFound } from "../domain/errors.ts"
import { chargedOnPayment } from "../domain/ledger.ts"
import { destination, type Trigger } from "../domain/lifecycle.ts"
import { isPayable, type OrderStatus } from "../domain/order.ts"
import {
  isDisputeOpen,
  isRefundable,
  leavesDueChargeOpen,
  refundBase,
  refundTrigger,
  type TransactionRecord,
  type TransactionStatus
} from "../domain/transaction.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { OrderRepo } from "../ports/OrderRepo.ts"
import { Outbox } from "../ports/Outbox.ts"
import { type NewTransaction, type TransactionChanges, TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { Books } from "./Books.ts"
import { fn, withSpan } from "../spans.ts"

/** Where a transaction's move takes a still-payable order (interface-v2 Orders; CONTRACT §7). */
const ORDER_MOVES: Partial<Record<Trigger, OrderStatus>> = {
  capture: "PAID",
  pay: "PAID",
  expire: "EXPIRED",
  cancel: "EXPIRED"
}

/** A transaction that may still end paid: the buyer may still pay it, or its outcome is not known yet. */
const mayStillPay = (status: TransactionStatus) =>
  status === "PENDING" || status === "PROCESSING" || status === "ANTIFRAUD"

/**
 * The fee and splits a payment of `paid` charges when it cannot cover those the transaction was created
 * with (ledger.ts `chargedOnPayment`): a change set with the move to paid, so that the sale's postings,
 * its refunds and the books check all read the same; none when the payment covers them.
 */
const chargedWhenPaid = (t: TransactionRecord, paid: number | undefined): Pick<TransactionChanges, "charged"> => {
  if (paid === undefined) return {}
  const charged = chargedOnPayment(
    paid,
    t.fee,
    t.split.map((s) => s.share)
  )
  if (charged.fee === t.fee && charged.shares.every((share, i) => share === t.split[i]!.share)) return {}
  return { charged: { fee: charged.fee, split: t.split.map((s, i) => ({ ...s, share: charged.shares[i]! })) } }
}

/**
 * The one owner of every status change. Each move is the transaction's update, its order's move, the
 * ledger's postings, the outbox event and the jobs the move causes, in one database transaction, against
 * the table of src/domain/lifecycle.ts; anything else is an IllegalTransition.
 */
export class Lifecycle extends Effect.Service<Lifecycle>()("Lifecycle", {
  effect: Effect.gen(function* () {
    const transactions = yield* TransactionRepo
    const orders = yield* OrderRepo
    const outbox = yield* Outbox
    const books = yield* Books
    const tx = yield* Transactional
    const scheduler = yield* JobScheduler

    const moveOrder = fn("Lifecycle.moveOrder")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      trigger: Trigger
    ) {
      if (t.orderId === null) return
      const to = trigger === "refund_full" ? "CANCELLED" : ORDER_MOVES[trigger]
      if (to === undefined) return
      const order = yield* orders.findForUpdate(accountId, t.orderId)
      if (Option.isNone(order)) return
      const status = order.value.status
      // CONTRACT §7: a transaction that reaches CAPTURED or PAID moves its order to PAID, also an order an
      // earlier attempt's expiry or full refund ended meanwhile (the buyer paid: the order is paid).
      if (to === "PAID") {
        if (status !== "PAID") yield* orders.setStatus(accountId, t.orderId, "PAID")
        return
      }
      // An attempt's expiry ends only a payable order, and only once no other attempt may still be paid; a full
      // refund cancels the order unless another of its transactions still holds the buyer's money (docs/api.md
      // "Orders"). A later payment moves it to PAID all the same (above).
      if (to === "EXPIRED" && !isPayable(status)) return
      const others = yield* transactions.otherStatuses(accountId, t.orderId, t.id)
      const blocking = to === "EXPIRED" ? mayStillPay : (s: TransactionStatus) => isRefundable(s) || isDisputeOpen(s)
      if (others.some(blocking)) return
      yield* orders.setStatus(accountId, t.orderId, to)
    })

    /** Moves a transaction the caller has locked, inside the caller's database transaction. */
    const apply = fn("Lifecycle.apply")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      trigger: Trigger,
      changes: Omit<TransactionChanges, "status"> = {}
    ) {
      const to = yield* destination(t, trigger)
      const charged = trigger === "pay" ? chargedWhenPaid(t, changes.details?.payment?.amount) : {}
      const after = yield* transactions.update(accountId, t.id, { ...changes, ...charged, status: to })
      yield* moveOrder(accountId, after, trigger)
      yield* books.record(accountId, { trigger, before: t, after })
      yield* outbox.emit(accountId, trigger, after)
      // A bolepix settled by its barcode, expired or cancelled: its cobv is withdrawn at the PSP by a job that
      // commits with this move (docs/boleto.md "Bolepix").
      if (leavesDueChargeOpen(t, after)) yield* scheduler.withdrawDueChargeSoon(accountId, t.id)
      return after
    })

    /**
     * A refund the provider completed, on a transaction the caller has locked: the move to partial or
     * full refund — or, when a dispute opened (and maybe closed) while the provider was refunding, the
     * refund recorded with its order move and event under the status the dispute gave, which it keeps
     * (docs/money.md "Refunds and disputes"). Refunds post when taken (Books.takeRefund).
     */
    const refunded = fn("Lifecycle.refunded")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      changes: { readonly refundedAmount: number; readonly refundReserved: number }
    ) {
      const trigger = refundTrigger(refundBase(t), changes.refundedAmount)
      if (isRefundable(t.status)) return yield* apply(accountId, t, trigger, changes)
      const after = yield* transactions.update(accountId, t.id, changes)
      yield* moveOrder(accountId, after, trigger)
      yield* outbox.emit(accountId, trigger, after)
      return after
    })

    /**
     * Locks the transaction and moves it by the trigger `choose` picks from it (the same event may mean
     * another move per interface), in a database transaction of its own. `alongside` (a job the caller's
     * move announces) runs after the move in the same database transaction, so it commits or rolls back
     * with it (JobScheduler). Nothing in it reaches outside the database, so a deadlock's victim is run again
     * (Transactional.retrying).
     */
    const moveBy = (
      accountId: AccountId,
      transactionId: TransactionId,
      choose: (t: TransactionRecord) => Trigger,
      changes: Omit<TransactionChanges, "status"> = {},
      alongside: Effect.Effect<void> = Effect.void
    ) =>
      tx
        .retrying(
          Effect.gen(function* () {
            const found = yield* transactions.findForUpdate(accountId, transactionId)
            if (Option.isNone(found)) return yield* new NotFound({ message: "transaction not found" })
            const after = yield* apply(accountId, found.value, choose(found.value), changes)
            yield* alongside
            return after
          })
        )
        .pipe(withSpan("Lifecycle.move"))

    /** Locks the transaction and moves it, in a database transaction of its own (`alongside`: see moveBy). */
    const move = (
      accountId: AccountId,
      transactionId: TransactionId,
      trigger: Trigger,
      changes: Omit<TransactionChanges, "status"> = {},
      alongside: Effect.Effect<void> = Effect.void
    ) => moveBy(accountId, transactionId, () => trigger, changes, alongside)

    /**
     * Records a new transaction and its `created` event, inside the caller's database transaction. A
     * transaction born refused (the antifraud said no before the acquirer saw it) also gets the
     * event of that refusal.
     */
    const create = fn("Lifecycle.create")(function* (
      accountId: AccountId,
      transaction: NewTransaction,
      bornAs?: "decline"
    ) {
      const created = yield* transactions.insert(accountId, transaction)
      yield* outbox.emit(accountId, "created", created)
      if (bornAs !== undefined) yield* outbox.emit(accountId, bornAs, created)
      return created
    })

    return { apply, refunded, move, moveBy, create }
  })
}) {}
