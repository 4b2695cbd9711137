import { Context, type Effect } from "effect"

type Labels<L extends string> = { readonly [K in L]: string }

export interface CounterOf<L extends string> {
  readonly inc: (labels: Labels<L>, value?: number) => void
}
export interface HistogramOf<L extends string> {
  readonly observe: (labels: Labels<L>, value: number) => void
}

/**
 * The service's measurements (docs/operations.md: the metrics table). Code counts and times through
 * this port; the adapter decides the exposition (Prometheus text on /metrics today).
 */
export class Metrics extends Context.Tag("Metrics")<
  Metrics,
  {
    readonly httpRequests: CounterOf<"route" | "method" | "status">
    readonly httpDuration: HistogramOf<"route" | "method">
    /** Requests Node's HTTP parser refused before any route saw them, by reason (docs/input.md "Framing"). */
    readonly httpClientErrors: CounterOf<"reason">
    readonly rateLimitDecisions: CounterOf<"outcome">
    readonly idempotency: CounterOf<"outcome">
    readonly charges: CounterOf<"method" | "outcome">
    /** The antifraud's decision on each card charge it assessed (approve, review, reject). */
    readonly antifraudDecisions: CounterOf<"decision">
    readonly refunds: CounterOf<"method" | "kind">
    readonly acquirerDuration: HistogramOf<"operation" | "outcome">
    /**
     * Charge attempts a router made per acquirer (docs/providers.md "Failover rules"), by outcome:
     * approved, declined, not_charged, unknown, skipped (circuit open). Approvals are outcome="approved".
     */
    readonly acquirerAttempts: CounterOf<"acquirer" | "outcome">
    readonly acquirerAttemptDuration: HistogramOf<"acquirer">
    /** 1 while an acquirer's circuit breaker is open (it is skipped), else 0. */
    readonly acquirerCircuitOpen: { readonly set: (labels: Labels<"acquirer">, value: number) => void }
    readonly webhookDeliveries: CounterOf<"event" | "outcome">
    readonly webhookDuration: HistogramOf<"outcome">
    readonly webhookAttemptsUntilSuccess: { readonly observe: (value: number) => void }
    readonly jobs: {
      readonly reset: () => void
      readonly set: (labels: Labels<"task" | "state">, value: number) => void
    }
    readonly oldestPendingJobAge: { readonly set: (value: number) => void }
    /**
     * Per task, seconds since the oldest job that failed and waits to be tried again first failed (estimated
     * from graphile-worker's back-off; docs/operations.md "Scheduled jobs"), sampled on scrape.
     */
    readonly oldestRetryingJobAge: {
      readonly reset: () => void
      readonly set: (labels: Labels<"task">, value: number) => void
    }
    readonly jobRuns: CounterOf<"task" | "outcome">
    /** The worker's queries for jobs, by whether they found any (docs/performance.md "The worker's wake-ups"). */
    readonly jobFetches: CounterOf<"found">
    readonly ledgerPostings: CounterOf<"type">
    /** Seconds since the oldest receivable still unsettled fell due (0 when none is late). */
    readonly settlementLag: { readonly set: (value: number) => void }
    /**
     * Total absolute difference the last ledger check found (0 when the books are right), whichever process
     * ran it: read from the database on scrape (src/app/Audit.ts).
     */
    readonly ledgerImbalance: { readonly set: (value: number) => void }
    /** When the last ledger check was recorded, Unix seconds (0 before the first), read on scrape likewise. */
    readonly ledgerCheckedAt: { readonly set: (value: number) => void }
    /** What waits for an operator, by kind (docs/operations.md "What waits for an operator"), sampled on scrape. */
    readonly operatorQueue: { readonly set: (labels: Labels<"kind">, value: number) => void }
    /** Seconds the oldest of a kind has waited (0 when none), for the kinds an operator closes. */
    readonly operatorQueueOldestAge: { readonly set: (labels: Labels<"kind">, value: number) => void }
    readonly withdrawals: CounterOf<"outcome">
    readonly disputes: CounterOf<"kind" | "outcome">
    /**
     * Runs `sample` before every exposition, for gauges of shared state that every process reports alike
     * (read from the database when scraped). A sample that fails, or takes over 2 s (a database that does not
     * answer), leaves its gauges as they were and is logged; the exposition goes on.
     */
    readonly sampleOnScrape: (sample: Effect.Effect<void, unknown>) => Effect.Effect<void>
    /** The exposition text and its content type, for GET /metrics. */
    readonly exposition: Effect.Effect<{ readonly contentType: string; readonly body: string }>
  }
>() {}
