import { Effect, Layer } from "effect"
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client"
import { Metrics } from "../../ports/Metrics.ts"

/**
 * The Prometheus registry of this process. Every process (API or worker) exposes its own series;
 * Prometheus sums them across instances.
 */
export const PrometheusMetrics = Layer.sync(Metrics, () => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]
  const samples: Array<Effect.Effect<void>> = []
  return Metrics.of({
    sampleOnScrape: (sample) =>
      Effect.sync(() => {
        samples.push(
          // Disconnected: past the deadline the scrape goes on while the statement's interruption finishes.
          Effect.disconnect(sample).pipe(
            Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "no answer within 2 s" }),
            Effect.catchAllCause((cause) =>
              Effect.logWarning("metrics: a gauge sampled on scrape kept its value", cause)
            )
          )
        )
      }),
    exposition: Effect.suspend(() => Effect.all(samples, { discard: true })).pipe(
      Effect.zipRight(
        Effect.promise(async () => ({ contentType: registry.contentType, body: await registry.metrics() }))
      )
    ),
    httpRequests: new Counter({
      name: "http_requests_total",
      help: "HTTP requests by route template, method and status",
      labelNames: ["route", "method", "status"] as const,
      registers
    }),
    httpDuration: new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP request latency by route template and method",
      labelNames: ["route", "method"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers
    }),
    httpClientErrors: new Counter({
      name: "http_client_errors_total",
      help: "Requests refused by the HTTP parser before routing (framing, header size, Expect), by reason",
      labelNames: ["reason"] as const,
      registers
    }),
    rateLimitDecisions: new Counter({
      name: "rate_limit_decisions_total",
      help: "Rate-limiter decisions on API-key requests",
      labelNames: ["outcome"] as const,
      registers
    }),
    idempotency: new Counter({
      name: "idempotency_requests_total",
      help: "Requests carrying an Idempotency-Key by outcome (new, replayed, in_flight, payload_mismatch)",
      labelNames: ["outcome"] as const,
      registers
    }),
    charges: new Counter({
      name: "charges_total",
      help: "Charges by method and outcome",
      labelNames: ["method", "outcome"] as const,
      registers
    }),
    antifraudDecisions: new Counter({
      name: "antifraud_decisions_total",
      help: "Antifraud decisions on card charges (approve, review, reject), as the analysis decided them",
      labelNames: ["decision"] as const,
      registers
    }),
    refunds: new Counter({
      name: "refunds_total",
      help: "Refunds by method and kind (full, partial)",
      labelNames: ["method", "kind"] as const,
      registers
    }),
    acquirerDuration: new Histogram({
      name: "acquirer_call_duration_seconds",
      help: "Latency of calls to the acquirer port by operation and outcome",
      labelNames: ["operation", "outcome"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers
    }),
    acquirerAttempts: new Counter({
      name: "acquirer_attempts_total",
      help: "Card charge attempts per acquirer by outcome (approved, declined, not_charged, unknown, skipped)",
      labelNames: ["acquirer", "outcome"] as const,
      registers
    }),
    acquirerAttemptDuration: new Histogram({
      name: "acquirer_attempt_duration_seconds",
      help: "Latency of card charge attempts per acquirer",
      labelNames: ["acquirer"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers
    }),
    acquirerCircuitOpen: new Gauge({
      name: "acquirer_circuit_open",
      help: "1 while the acquirer's circuit breaker is open and charges skip it",
      labelNames: ["acquirer"] as const,
      registers
    }),
    webhookDeliveries: new Counter({
      name: "webhook_deliveries_total",
      help: "Webhook delivery attempts by event and outcome",
      labelNames: ["event", "outcome"] as const,
      registers
    }),
    webhookDuration: new Histogram({
      name: "webhook_delivery_duration_seconds",
      help: "Latency of webhook delivery attempts",
      labelNames: ["outcome"] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers
    }),
    webhookAttemptsUntilSuccess: new Histogram({
      name: "webhook_attempts_until_success",
      help: "Attempts a delivery needed before its receiver answered 200",
      buckets: [1, 2, 3, 4, 5, 6, 8, 10],
      registers
    }),
    jobs: new Gauge({
      name: "jobs",
      help: "graphile-worker jobs by task and state (queued, retrying, running, failed), sampled on scrape",
      labelNames: ["task", "state"] as const,
      registers
    }),
    oldestPendingJobAge: new Gauge({
      name: "jobs_oldest_pending_age_seconds",
      help: "Age of the oldest job that is due and not yet running, sampled on scrape",
      registers
    }),
    oldestRetryingJobAge: new Gauge({
      name: "jobs_oldest_retrying_age_seconds",
      help: "Per task, seconds since the first failure of the oldest job that failed and waits to be tried again",
      labelNames: ["task"] as const,
      registers
    }),
    jobRuns: new Counter({
      name: "job_runs_total",
      help: "Job executions in this process by task and outcome",
      labelNames: ["task", "outcome"] as const,
      registers
    }),
    jobFetches: new Counter({
      name: "job_fetches_total",
      help: "The worker's queries for due jobs in this process, by whether they found any (found: yes, no)",
      labelNames: ["found"] as const,
      registers
    }),
    ledgerPostings: new Counter({
      name: "ledger_postings_total",
      help: "Ledger postings written by this process, by type (docs/money.md)",
      labelNames: ["type"] as const,
      registers
    }),
    settlementLag: new Gauge({
      name: "settlement_lag_seconds",
      help: "Now minus available_at of the oldest receivable due and not yet settled, sampled on scrape",
      registers
    }),
    ledgerImbalance: new Gauge({
      name: "ledger_imbalance_centavos",
      help:
        "Sum of the absolute differences the last ledger check found (must be 0), whichever process ran it, " +
        "sampled on scrape",
      registers
    }),
    ledgerCheckedAt: new Gauge({
      name: "ledger_check_timestamp_seconds",
      help: "Unix time the last ledger check was recorded (0 before the first), sampled on scrape",
      registers
    }),
    operatorQueue: new Gauge({
      name: "operator_queue",
      help: "Work waiting for an operator by kind (PIX exceptions, bolepix returns, held retornos), sampled on scrape",
      labelNames: ["kind"] as const,
      registers
    }),
    operatorQueueOldestAge: new Gauge({
      name: "operator_queue_oldest_age_seconds",
      help: "Age of the oldest work of a kind an operator closes, waiting, sampled on scrape (0 when none)",
      labelNames: ["kind"] as const,
      registers
    }),
    withdrawals: new Counter({
      name: "withdrawals_total",
      help: "Withdrawals by outcome (requested, paid, failed)",
      labelNames: ["outcome"] as const,
      registers
    }),
    disputes: new Counter({
      name: "disputes_total",
      help: "Disputes by kind (chargeback, med) and outcome (opened, won, lost)",
      labelNames: ["kind", "outcome"] as const,
      registers
    })
  })
})
