import { Effect, Option } from "effect"
import { Ledger } from "../ports/Ledger.ts"
import { LedgerChecks, type LastCheck } from "../ports/LedgerChecks.ts"
import { Metrics } from "../ports/Metrics.ts"
import { withSpan } from "../spans.ts"

/**
 * The reconciliation of the books (docs/money.md): every balance recomputed from its postings, every
 * entry's sum, and pending/reserved money against the receivables and holds that explain it. Run by
 * `npm run cli -- ledger check`, at the end of the test suite, and hourly by the worker.
 *
 * Its outcome is recorded in the database (one row, replaced by each check), and every process, API or
 * worker, reports the last one recorded as ledger_imbalance_centavos and ledger_check_timestamp_seconds, read
 * when /metrics is scraped (docs/operations.md "Metrics"): the alert on the imbalance clears with the first
 * check that finds the books mended, whichever worker runs it, or the CLI. (Each process used to report the
 * last check it ran itself, so `max` over the workers kept a stale finding.)
 */
export class Audit extends Effect.Service<Audit>()("Audit", {
  effect: Effect.gen(function* () {
    const ledger = yield* Ledger
    const metrics = yield* Metrics
    const checks = yield* LedgerChecks
    const report = ({ checkedAt, imbalance }: LastCheck) =>
      Effect.sync(() => {
        metrics.ledgerImbalance.set(imbalance)
        metrics.ledgerCheckedAt.set(checkedAt.getTime() / 1000)
      })
    yield* metrics.sampleOnScrape(
      Effect.flatMap(checks.last, Option.match({ onNone: () => Effect.void, onSome: report }))
    )
    return {
      check: Effect.gen(function* () {
        const discrepancies = yield* ledger.check
        for (const d of discrepancies) {
          yield* Effect.logError("ledger discrepancy").pipe(
            Effect.annotateLogs({ accountId: d.accountId, what: d.what, expected: d.expected, actual: d.actual })
          )
        }
        const imbalance = discrepancies.reduce((s, d) => s + Math.abs(d.expected - d.actual), 0)
        yield* Effect.flatMap(checks.record(imbalance, discrepancies.length), report)
        return discrepancies
      }).pipe(withSpan("Audit.check"))
    }
  })
}) {}
