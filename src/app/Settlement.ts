import { Effect, Option } from "effect"
import { Conflict, NotFound } from "../domain/errors.ts"
import { isPayable } from "../domain/order.ts"
import type { TransactionRecord } from "../domain/transaction.ts"
import { OrderRepo } from "../ports/OrderRepo.ts"
import { Outbox } from "../ports/Outbox.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"

/**
 * What happens to a PENDING PIX or boleto after the charge: the buyer pays (PAID, order PAID) or the
 * deadline passes (FAILED, order EXPIRED). Each move locks the transaction and emits its event in
 * the same database transaction, so a sandbox call and a job racing each other apply only once.
 */
export class Settlement extends Effect.Service<Settlement>()("Settlement", {
  effect: Effect.gen(function* () {
    const transactions = yield* TransactionRepo
    const orders = yield* OrderRepo
    const outbox = yield* Outbox
    const tx = yield* Transactional

    const pending = Effect.fn("Settlement.pending")(function* (accountId: string, transactionId: string) {
      const found = yield* transactions.findForUpdate(accountId, transactionId)
      if (Option.isNone(found)) return yield* new NotFound({ message: "transaction not found" })
      if (found.value.status !== "PENDING" || found.value.method === "CARD") {
        return yield* new Conflict({
          code: "invalid_state",
          message: `a ${found.value.method} transaction in ${found.value.status} cannot be settled`
        })
      }
      return found.value
    })

    const moveOrder = Effect.fn("Settlement.moveOrder")(function* (
      accountId: string,
      t: TransactionRecord,
      to: "PAID" | "EXPIRED"
    ) {
      if (t.orderId === null) return
      const order = yield* orders.findForUpdate(accountId, t.orderId)
      if (Option.isSome(order) && isPayable(order.value.status)) yield* orders.setStatus(accountId, t.orderId, to)
    })

    return {
      markPaid: (accountId: string, transactionId: string, paidAt: Date) =>
        tx
          .run(
            Effect.gen(function* () {
              const t = yield* pending(accountId, transactionId)
              const paid = yield* transactions.update(accountId, t.id, { status: "PAID", paidAt })
              yield* moveOrder(accountId, paid, "PAID")
              yield* outbox.emit(accountId, "transaction.paid", paid)
              return paid
            })
          )
          .pipe(Effect.withSpan("Settlement.markPaid")),

      expire: (accountId: string, transactionId: string) =>
        tx
          .run(
            Effect.gen(function* () {
              const t = yield* pending(accountId, transactionId)
              const failed = yield* transactions.update(accountId, t.id, { status: "FAILED", declineCode: "expired" })
              yield* moveOrder(accountId, failed, "EXPIRED")
              yield* outbox.emit(accountId, "transaction.failed", failed)
              return failed
            })
          )
          .pipe(Effect.withSpan("Settlement.expire"))
    }
  })
}) {}
