import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Effect } from "effect"
import type { Trigger } from "../domain/lifecycle.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { Receivables } from "../ports/Receivables.ts"
import { withSpan } from "../spans.ts"

export type ChargebackStage = "open" | "lost" | "won"
export type MedStage = "open" | "analysis" | "lost" | "won"

const CHARGEBACK: Readonly<Record<ChargebackStage, Trigger>> = {
  open: "chargeback_open",
  lost: "chargeback_lost",
  won: "chargeback_won"
}
const MED: Readonly<Record<MedStage, Trigger>> = {
  open: "med_open",
  analysis: "med_analysis",
  lost: "med_lost",
  won: "med_won"
}

/**
 * Card chargebacks and PIX MED (CONTRACT-v1 §10). An acquirer's or PSP's notification, the sandbox
 * endpoints and the sandbox's dispute card all call these: each stage is one lifecycle move, whose
 * money the books move in the same database transaction (CONTRACT-v1 §7).
 */
export class Disputes extends Effect.Service<Disputes>()("Disputes", {
  effect: Effect.gen(function* () {
    const lifecycle = yield* Lifecycle
    const receivables = yield* Receivables
    const chargeback = (accountId: AccountId, transactionId: TransactionId, stage: ChargebackStage) =>
      lifecycle.move(accountId, transactionId, CHARGEBACK[stage]).pipe(withSpan("Disputes.chargeback"))
    return {
      chargeback,
      /**
       * The sandbox dispute card's announced chargeback (`sandbox_dispute`, src/jobs/tasks.ts): opened only if
       * the sale was never disputed meanwhile. One opened by a notification and won returns the sale to PAID,
       * where opening is legal again: the same announced chargeback would hold its money a second time.
       */
      announcedChargeback: (accountId: AccountId, transactionId: TransactionId) =>
        Effect.flatMap(receivables.countTags(accountId, transactionId, "dispute:"), (disputes) =>
          disputes > 0 ? Effect.void : Effect.asVoid(chargeback(accountId, transactionId, "open"))
        ),
      med: (accountId: AccountId, transactionId: TransactionId, stage: MedStage) =>
        lifecycle.move(accountId, transactionId, MED[stage]).pipe(withSpan("Disputes.med"))
    }
  })
}) {}
