import { CustomerId, type OrderId, type TransactionId } from "../../src/domain/ids.ts"
import { Effect, Layer, Option, Stream } from "effect"
import type { EventKind } from "../../src/domain/events.ts"
import type { Order, OrderStatus } from "../../src/domain/order.ts"
import type { TransactionRecord } from "../../src/domain/transaction.ts"
import { Books, type Movement } from "../../src/app/Books.ts"
import { OrderRepo } from "../../src/ports/OrderRepo.ts"
import { Outbox } from "../../src/ports/Outbox.ts"
import { TransactionRepo } from "../../src/ports/TransactionRepo.ts"
import { Transactional } from "../../src/ports/Transactional.ts"
import { JobScheduler } from "../../src/ports/JobScheduler.ts"

/** In-memory stand-ins for the ports the lifecycle writes through, with what each was asked to do. */
export const makeFakePorts = () => {
  const transactions = new Map<TransactionId, TransactionRecord>()
  const orders = new Map<OrderId, OrderStatus>()
  const events: Array<{ kind: EventKind; transaction: TransactionRecord }> = []
  const movements: Array<Movement> = []
  /** The transactions whose due-date charge a move asked to withdraw (JobScheduler.withdrawDueChargeSoon). */
  const withdrawals: Array<TransactionId> = []
  const layer = Layer.mergeAll(
    Layer.succeed(
      TransactionRepo,
      TransactionRepo.of({
        insert: (_, t) =>
          Effect.sync(() => {
            const now = new Date()
            const record: TransactionRecord = {
              ...t,
              refundedAmount: 0,
              refundReserved: 0,
              declineCode: t.declineCode ?? null,
              acquirerReference: null,
              acquirer: null,
              paidAt: null,
              createdAt: now,
              updatedAt: now
            }
            transactions.set(t.id, record)
            return record
          }),
        stream: () => Stream.suspend(() => Stream.fromIterable([...transactions.values()])),
        find: (_, id) => Effect.sync(() => Option.fromNullable(transactions.get(id))),
        findForUpdate: (_, id) => Effect.sync(() => Option.fromNullable(transactions.get(id))),
        update: (_, id, changes) =>
          Effect.sync(() => {
            const current = transactions.get(id)!
            const { charged, ...rest } = changes
            const details = { ...current.details, ...changes.details }
            const paidLess = charged === undefined ? {} : { fee: charged.fee, split: charged.split }
            const updated = { ...current, ...rest, ...paidLess, details, updatedAt: new Date() }
            transactions.set(id, updated)
            return updated
          }),
        otherStatuses: (_, orderId, except) =>
          Effect.sync(() =>
            [...transactions.values()].filter((t) => t.orderId === orderId && t.id !== except).map((t) => t.status)
          ),
        hasProcessing: () => Effect.succeed(false),
        touchProcessing: () => Effect.succeed(true),
        stuckProcessing: () => Effect.succeed([]),
        pendingBoletos: () => Effect.succeed([]),
        pixNearExpiry: () => Effect.succeed([]),
        page: () => Effect.sync(() => ({ rows: [...transactions.values()], total: transactions.size, next: null }))
      })
    ),
    Layer.succeed(
      OrderRepo,
      OrderRepo.of({
        insertForLiveCustomer: () => Effect.succeed(Option.none()),
        findToCharge: () => Effect.succeed(Option.none()),
        expectAsRead: () => Effect.void,
        stream: () => Stream.empty,
        find: () => Effect.succeed(Option.none()),
        findForUpdate: (_, id) =>
          Effect.sync(() =>
            Option.map(
              Option.fromNullable(orders.get(id)),
              (status): Order =>
                ({ id, customerId: CustomerId.make(id), amount: 1, status, createdAt: new Date() }) as Order
            )
          ),
        setStatus: (_, id, status) => Effect.sync(() => void orders.set(id, status))
      })
    ),
    Layer.succeed(
      Outbox,
      Outbox.of({
        emit: (_, kind, transaction) => Effect.sync(() => void events.push({ kind, transaction })),
        emitFrozen: () => Effect.void
      })
    ),
    Layer.succeed(
      Books,
      Books.of({
        record: (_, movement) => Effect.sync(() => void movements.push(movement)),
        takeRefund: () => Effect.void,
        confirmRefund: () => Effect.void,
        returnRefund: () => Effect.void,
        holdForDispute: () => Effect.void,
        settle: () => Effect.void,
        settleTransaction: () => Effect.void
      })
    ),
    Layer.succeed(
      Transactional,
      Transactional.of({
        run: (effect) => effect,
        retrying: (effect) => effect,
        afterCommit: (effect) => effect,
        batch: (effect) => effect
      })
    ),
    Layer.succeed(
      JobScheduler,
      JobScheduler.of({
        expireAt: () => Effect.void,
        withdrawDueChargeSoon: (_, transactionId) => Effect.sync(() => void withdrawals.push(transactionId)),
        confirmBoletosSoon: Effect.void,
        confirmBoletosAt: () => Effect.void,
        settleAt: () => Effect.void,
        payWithdrawalAt: () => Effect.void,
        sandboxDisputeAt: () => Effect.void,
        bankFilesCycleAt: () => Effect.void,
        bankFilesCycleSoon: Effect.void,
        deliverAt: () => Effect.void
      })
    )
  )
  return { layer, transactions, orders, events, movements, withdrawals }
}
