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
  "cnab_retorno_held"
] as const
export type OperatorQueueKind = (typeof OPERATOR_QUEUE_KINDS)[number]

/**
 * The kinds that leave the queue once handled, so how long the oldest has waited says something: a second
 * payment given back (by the PSP or by hand), a held retorno processed once the missing one arrives. A PIX
 * received that did not settle its charge stays recorded as it is (nothing marks it handled yet): its count
 * only grows, and an alert watches it grow instead.
 */
const CLOSES: ReadonlySet<OperatorQueueKind> = new Set(["bolepix_to_return", "bolepix_returning", "cnab_retorno_held"])

/**
 * What waits for an operator, the same shared state whichever process is asked (sampled when /metrics is
 * scraped, as the job queue is): PIX received that found no charge or could not settle it (`pix_received`
 * outcomes `unknown_charge`, `amount_mismatch`, `not_payable`; `returned` is a bolepix second PIX, counted as
 * that), bolepix second payments owed back by hand (`to_return`) or still asked of the PSP (`returning`), and
 * CNAB retornos held out of sequence.
 */
export class OperatorQueue extends Effect.Service<OperatorQueue>()("OperatorQueue", {
  effect: Effect.gen(function* () {
    const reads = yield* OperatorQueueReads
    return {
      /** Every kind, those with nothing waiting at 0; the oldest's age only for the kinds that close. */
      sample: fn("OperatorQueue.sample")(function* () {
        const waiting = yield* reads.waiting
        const byKind = new Map<OperatorQueueKind, Waiting>(
          OPERATOR_QUEUE_KINDS.map((kind) => [kind, { count: 0, oldestAgeSeconds: 0 }])
        )
        for (const p of waiting.pixReceived) byKind.set(`pix_${p.outcome}`, p)
        for (const s of waiting.secondPayments) byKind.set(`bolepix_${s.status}`, s)
        byKind.set("cnab_retorno_held", waiting.heldRetornos)
        return [...byKind].map(([kind, { count, oldestAgeSeconds }]) => ({
          kind,
          count,
          oldestAgeSeconds: CLOSES.has(kind) ? oldestAgeSeconds : null
        }))
      })
    }
  })
}) {}
