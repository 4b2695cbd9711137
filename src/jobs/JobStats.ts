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
        // retrying: failed at least once (or its worker died mid-run) and waits for its next attempt. Split from
        // queued, a job that keeps failing is seen long before its attempts run out (docs/operations.md
        // "Scheduled jobs"), and so is how long ago the oldest of a task first failed (a running job included).
        // graphile-worker keeps no such time. After its n-th failure a job is due again e^min(n, 10) seconds
        // later (run_at), so its first failure was run_at minus the back-offs of its failures so far,
        // e(e^n - 1)/(e - 1) up to 10 failures and e^10 more for each after: late pickups only make the
        // estimate younger, never older. A running job has one failure fewer than its attempts.
        const rows = yield* sql<{ task: string; state: string; count: number; retryingAge: number | null }>`
          select task_identifier as task,
                 case when attempts >= max_attempts then 'failed'
                      when locked_at is not null then 'running'
                      when attempts > 0 then 'retrying'
                      else 'queued' end as state,
                 count(*)::int as count,
                 max(case when failures > 0 and failures < max_attempts then greatest(0, extract(epoch from
                       now() - greatest(created_at, run_at - make_interval(secs => case when failures <= 10
                         then exp(1) * (exp(failures) - 1) / (exp(1) - 1)
                         else exp(1) * (exp(10) - 1) / (exp(1) - 1) + (failures - 10) * exp(10) end))))
                     end)::float8 as retrying_age
          from graphile_worker.jobs, lateral (select attempts - (locked_at is not null)::int as failures) f
          group by 1, 2`
        const [oldest] = yield* sql<{ age: number | null }>`
          select extract(epoch from now() - min(run_at))::float8 as age from graphile_worker.jobs
          where locked_at is null and attempts < max_attempts and run_at <= now()`
        metrics.jobs.reset()
        metrics.oldestRetryingJobAge.reset()
        const retrying = new Map<string, number>()
        for (const row of rows) {
          metrics.jobs.set({ task: row.task, state: row.state }, row.count)
          if (row.retryingAge !== null) retrying.set(row.task, Math.max(row.retryingAge, retrying.get(row.task) ?? 0))
        }
        for (const [task, age] of retrying) metrics.oldestRetryingJobAge.set({ task }, age)
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
