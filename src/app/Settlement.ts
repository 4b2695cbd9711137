import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Effect } from "effect"
import { Lifecycle } from "./Lifecycle.ts"

/**
 * What happens to a PENDING PIX or boleto after the charge: the buyer pays (PAID, order PAID) or the
 * deadline passes (v2: FAILED; v1: CANCELLED; the order EXPIRED). Each is one lifecycle move,
 * so a sandbox call and a job racing each other apply only once.
 */
export class Settlement extends Effect.Service<Settlement>()("Settlement", {
  effect: Effect.gen(function* () {
    const lifecycle = yield* Lifecycle
    return {
      markPaid: (accountId: AccountId, transactionId: TransactionId, paidAt: Date) =>
        lifecycle.move(accountId, transactionId, "pay", { paidAt }).pipe(Effect.withSpan("Settlement.markPaid")),

      expire: (accountId: AccountId, transactionId: TransactionId) =>
        lifecycle
          .moveBy(accountId, transactionId, (t) => (t.origin === "v1" ? "cancel" : "expire"), {
            declineCode: "expired"
          })
          .pipe(Effect.withSpan("Settlement.expire"))
    }
  })
}) {}
