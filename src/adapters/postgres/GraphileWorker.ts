import { EventEmitter } from "node:events"
import { SqlClient } from "@effect/sql"
import { Effect, ExecutionStrategy, Layer, Option, Schedule, Scope } from "effect"
import { run, type WorkerEvents } from "graphile-worker"
import { PgPool } from "./Database.ts"
import { quietLogger } from "./Migrations.ts"
import { AppConfig } from "../../config/AppConfig.ts"
import { Metrics } from "../../ports/Metrics.ts"
import { CRONTAB, makeTaskList, type TaskServices } from "../../jobs/tasks.ts"

const HEARTBEAT = "5 seconds"
// A worker silent this long is dead; its jobs locked for at least as long are released.
const STALE_SECONDS = 20

/**
 * The worker role: graphile-worker on the shared pool, any number of processes on one database
 * (SKIP LOCKED + LISTEN/NOTIFY). Closing the scope calls `runner.stop()`, which lets running jobs
 * finish and releases the rest. Heartbeats, kept up until then, let the survivors recover a hard-killed
 * worker's jobs, and only those.
 */
export const WorkerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const pool = yield* PgPool
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    const runtime = yield* Effect.runtime<TaskServices>()
    const metrics = yield* Metrics

    const workerIds = new Set<string>()
    const events: WorkerEvents = new EventEmitter()
    // graphile-worker 0.17 locks jobs under the pool's id (locked_by = "pool-…"), not its workers' ids:
    // the heartbeat must carry that id, or the reaper takes every live lock older than STALE_SECONDS.
    events.on("pool:create", ({ workerPool }) => void workerIds.add(workerPool.id))

    const beat = Effect.suspend(() =>
      workerIds.size === 0
        ? Effect.void
        : sql`
        insert into worker_heartbeats (worker_id, beat_at)
        select id, now() from unnest(${[...workerIds]}::text[]) as id
        on conflict (worker_id) do update set beat_at = now()`
    )
    const reap = sql<{ released: number }>`
      with dead as (
        select distinct j.locked_by as id from graphile_worker._private_jobs j
        where j.locked_by is not null and j.locked_at < now() - make_interval(secs => ${STALE_SECONDS})
          and not exists (select 1 from worker_heartbeats h
                          where h.worker_id = j.locked_by and h.beat_at > now() - make_interval(secs =>
                            ${STALE_SECONDS}))
      )
      select graphile_worker.force_unlock_workers(array(select id from dead)),
             (select count(*)::int from dead) as released`.pipe(
      Effect.tap(([row]) =>
        row && row.released > 0 ? Effect.logWarning(`released the jobs of ${row.released} dead worker(s)`) : Effect.void
      ),
      Effect.zipRight(sql`delete from worker_heartbeats where beat_at < now() - interval '1 day'`)
    )

    // A local queue fetches (and locks) a batch of jobs in one query instead of one query per job; its
    // jobs are locked under the pool's id too, so the heartbeats cover them, and stop() returns the unused.
    const localQueueSize = Option.getOrElse(config.workerLocalQueueSize, () => 2 * config.workerConcurrency)
    // A fetch that finds nothing (a PIX charge's expiry, due in an hour, woke every worker) starts a pause
    // in which notices are counted, not each answered by a query; enough of them end it early
    // (graphile-worker's refetchDelay; docs/performance.md "The worker's wake-ups").
    const refetchDelay =
      config.workerRefetchDelayMs > 0
        ? { refetchDelay: { durationMs: Math.min(config.workerRefetchDelayMs, config.workerPollIntervalMs) } }
        : {}
    // job_fetches_total{found}: how often the worker asks the database for jobs, and how often for nothing.
    if (localQueueSize > 1) {
      events.on("localQueue:getJobs:complete", ({ jobs }) =>
        metrics.jobFetches.inc({ found: jobs.length > 0 ? "yes" : "no" })
      )
    } else {
      events.on("worker:getJob:empty", () => metrics.jobFetches.inc({ found: "no" }))
      events.on("job:start", () => metrics.jobFetches.inc({ found: "yes" }))
    }
    // The heartbeat outlives runner.stop(): a scope's finalizers run in reverse order, so this scope, opened
    // before the runner, closes after stop() has returned (the running jobs finished, the rest released). A
    // draining worker that stopped beating first would look dead to the other workers' reapers (its jobs
    // locked > STALE_SECONDS, no heartbeat), which would hand its running jobs to another worker to run a
    // second time (test/jobs.shutdown-heartbeat.test.ts). Only a worker killed outright goes silent with
    // jobs locked (docs/scaling.md).
    const heartbeatScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    yield* Scope.addFinalizer(
      heartbeatScope,
      Effect.suspend(() => sql`delete from worker_heartbeats where worker_id = any(${[...workerIds]}::text[])`).pipe(
        Effect.ignore
      )
    )
    const runner = yield* Effect.acquireRelease(
      Effect.promise(() =>
        run({
          pgPool: pool,
          concurrency: config.workerConcurrency,
          noHandleSignals: true,
          // New jobs wake the worker through LISTEN/NOTIFY at once; the poll only finds jobs that became
          // due since (webhook retries, deadlines), so it bounds how late those run.
          pollInterval: config.workerPollIntervalMs,
          taskList: makeTaskList(runtime),
          crontab: CRONTAB,
          logger: quietLogger,
          events,
          // Completions go through the batcher, which stop() flushes: a job finished during a
          // graceful shutdown is marked done before the pool closes instead of staying locked.
          preset: {
            worker: {
              completeJobBatchDelay: 0,
              failJobBatchDelay: 0,
              ...(localQueueSize > 1 ? { localQueue: { size: localQueueSize, ...refetchDelay } } : {})
            }
          }
        })
      ),
      (runner) => Effect.promise(() => runner.stop()).pipe(Effect.timeout("30 seconds"), Effect.ignore)
    )
    // Started once run() has created the pool, so the first beat already carries its id; interrupted (then
    // the rows deleted) when heartbeatScope closes, after runner.stop().
    yield* beat.pipe(
      Effect.catchAllCause(Effect.logWarning),
      Effect.repeat(Schedule.spaced(HEARTBEAT)),
      Effect.forkIn(heartbeatScope)
    )
    yield* reap.pipe(
      Effect.catchAllCause(Effect.logWarning),
      Effect.repeat(Schedule.spaced("10 seconds")),
      Effect.forkScoped
    )
    void runner
    yield* Effect.logInfo(`worker running (concurrency ${config.workerConcurrency}, local queue ${localQueueSize})`)
  })
)
