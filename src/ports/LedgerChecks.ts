import { Context, type Effect, type Option } from "effect"

/** What a books check found, and when. */
export interface LastCheck {
  /** The sum of every discrepancy's |expected − actual|, in centavos (0: the books reconcile). */
  readonly imbalance: number
  readonly checkedAt: Date
}

/**
 * The last books check's outcome, whichever process ran it (the hourly job on any worker, or the CLI): every
 * process reports it at scrape (docs/operations.md "Metrics"), so the imbalance alert clears with the first
 * check that finds the books mended, wherever it ran.
 */
export class LedgerChecks extends Context.Tag("LedgerChecks")<
  LedgerChecks,
  {
    /** Records a check's outcome, replacing the one before. */
    readonly record: (imbalance: number, discrepancies: number) => Effect.Effect<LastCheck>
    /** The last check recorded; none before the first. */
    readonly last: Effect.Effect<Option.Option<LastCheck>>
  }
>() {}
