import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { OperatorQueue } from "../app/OperatorQueue.ts"
import { Metrics } from "../ports/Metrics.ts"
import { Receivables } from "../ports/Receivables.ts"
import { withSpan } from "../spans.ts"

/**
 * Samples graphile-worker's queue into the job gauges, the settlement lag, and what waits for an operator,
 * when /metrics is scraped, so every process (API or worker) reports the same shared state.
 */
export class JobStats extends Effect.Service<JobStats>()("JobStats", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const metrics = yield* Metrics
    const receivables = yield* Receivables
    const operatorQueue = yield* OperatorQueue
    return {
      sample: Effect.gen(function* () {
        const rows = yield* sql<{ task: string; state: string; count: number }>`
          select task_identifier as task,
                 case when attempts >= max_attempts then 'failed'
                      when locked_at is not null then 'running'
                      else 'queued' end as state,
                 count(*)::int as count
          from graphile_worker.jobs group by 1, 2`
        const [oldest] = yield* sql<{ age: number | null }>`
          select extract(epoch from now() - min(run_at))::float8 as age from graphile_worker.jobs
          where locked_at is null and attempts < max_attempts and run_at <= now()`
        metrics.jobs.reset()
        for (const row of rows) metrics.jobs.set({ task: row.task, state: row.state }, row.count)
        metrics.oldestPendingJobAge.set(oldest?.age ?? 0)
        // Settlement lag (docs/money.md): how late the oldest receivable due is to become available.
        const now = new Date()
        const due = yield* receivables.oldestDue(now)
        metrics.settlementLag.set(
          Option.match(due, { onNone: () => 0, onSome: (at) => (now.getTime() - at.getTime()) / 1000 })
        )
        // What waits for an operator (docs/operations.md "What waits for an operator"): every kind, 0 included.
        for (const { kind, count, oldestAgeSeconds } of yield* operatorQueue.sample()) {
          metrics.operatorQueue.set({ kind }, count)
          metrics.operatorQueueOldestAge.set({ kind }, oldestAgeSeconds)
        }
      }).pipe(withSpan("JobStats.sample"))
    }
  })
}) {}
