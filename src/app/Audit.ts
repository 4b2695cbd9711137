import { Effect } from "effect"
import { Ledger } from "../ports/Ledger.ts"
import { Metrics } from "../ports/Metrics.ts"
import { withSpan } from "../spans.ts"

/**
 * The reconciliation of the books (docs/money.md): every balance recomputed from its postings, every
 * entry's sum, and pending/reserved money against the receivables and holds that explain it. Run by
 * `npm run cli -- ledger check`, at the end of the test suite, and hourly by the worker, whose
 * ledger_imbalance_centavos gauge an alert watches.
 */
export class Audit extends Effect.Service<Audit>()("Audit", {
  effect: Effect.gen(function* () {
    const ledger = yield* Ledger
    const metrics = yield* Metrics
    return {
      check: Effect.gen(function* () {
        const discrepancies = yield* ledger.check
        metrics.ledgerImbalance.set(discrepancies.reduce((s, d) => s + Math.abs(d.expected - d.actual), 0))
        for (const d of discrepancies) {
          yield* Effect.logError("ledger discrepancy").pipe(
            Effect.annotateLogs({ accountId: d.accountId, what: d.what, expected: d.expected, actual: d.actual })
          )
        }
        return discrepancies
      }).pipe(withSpan("Audit.check"))
    }
  })
}) {}
