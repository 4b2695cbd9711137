import { Effect } from "effect"
import { OperatorQueueReads, type Waiting } from "../ports/OperatorQueue.ts"
import { fn } from "../spans.ts"

/** Every kind of work that waits for an operator (docs/operations.md "What waits for an operator"). */
export const OPERATOR_QUEUE_KINDS = [
  "pix_unknown_charge",
  "pix_amount_mismatch",
  "pix_not_payable",
  "bolepix_to_return",
  "bolepix_returning",
  "boleto_payment_to_return",
  "cnab_retorno_held",
  "card_charge_unknown",
  "card_refund_unknown",
  "pix_refund_undecided"
] as const
export type OperatorQueueKind = (typeof OPERATOR_QUEUE_KINDS)[number]

/**
 * What waits for an operator, the same shared state whichever process is asked (sampled when /metrics is
 * scraped, as the job queue is): PIX received that found no charge or could not settle it (`pix_received`
 * outcomes `unknown_charge`, `amount_mismatch`, `not_payable`; `returned` is a bolepix second PIX, counted as
 * that), bolepix second payments owed back by hand (`to_return`) or still asked of the PSP (`returning`), boleto
 * payments the bank reported and the gateway did not apply, owed back by hand (`npm run cli -- boleto returned`), and
 * CNAB retornos held out of sequence, card charges whose outcome the acquirer could not say (PROCESSING, worked
 * on by no request, over five minutes: `npm run cli -- charges conclude`), card refunds an acquirer may have
 * made and could not say (PENDING over five minutes: `npm run cli -- refunds conclude`), and PIX refunds the
 * PSP has not decided in five minutes (`reconcile_pix` keeps asking; an operator looks at the PSP). Every kind
 * leaves the queue once handled (a PIX exception when an operator marks it, `npm run cli -- pix handled`), so
 * how long the oldest has waited is reported for each.
 */
export class OperatorQueue extends Effect.Service<OperatorQueue>()("OperatorQueue", {
  effect: Effect.gen(function* () {
    const reads = yield* OperatorQueueReads
    return {
      /** Every kind, those with nothing waiting at 0 (and an age of 0). */
      sample: fn("OperatorQueue.sample")(function* () {
        const waiting = yield* reads.waiting
        const byKind = new Map<OperatorQueueKind, Waiting>(
          OPERATOR_QUEUE_KINDS.map((kind) => [kind, { count: 0, oldestAgeSeconds: 0 }])
        )
        for (const p of waiting.pixReceived) byKind.set(`pix_${p.outcome}`, p)
        for (const s of waiting.secondPayments) byKind.set(`bolepix_${s.status}`, s)
        byKind.set("boleto_payment_to_return", waiting.boletoPaymentsToReturn)
        byKind.set("cnab_retorno_held", waiting.heldRetornos)
        byKind.set("card_charge_unknown", waiting.cardCharges)
        byKind.set("card_refund_unknown", waiting.cardRefunds)
        byKind.set("pix_refund_undecided", waiting.pixRefunds)
        return [...byKind].map(([kind, { count, oldestAgeSeconds }]) => ({ kind, count, oldestAgeSeconds }))
      })
    }
  })
}) {}
