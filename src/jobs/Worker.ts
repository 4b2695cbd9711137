import { Effect, Layer } from "effect"
import { run, type TaskList } from "graphile-worker"
import { PgPool } from "../adapters/postgres/Database.ts"
import { quietLogger } from "../adapters/postgres/Migrations.ts"
import { AppConfig } from "../config/AppConfig.ts"

/** Tasks by identifier; each is a thin call into a program of the core. */
export const taskList: TaskList = {}

/**
 * The worker role: graphile-worker on the shared pool. Stopping the scope calls `runner.stop()`,
 * which waits for running jobs to finish and releases the rest.
 */
export const WorkerLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const pool = yield* PgPool
    const config = yield* AppConfig
    yield* Effect.acquireRelease(
      Effect.promise(() =>
        run({ pgPool: pool, concurrency: config.workerConcurrency, noHandleSignals: true, pollInterval: 1000, taskList, logger: quietLogger })
      ),
      (runner) => Effect.promise(() => runner.stop()).pipe(Effect.timeout("30 seconds"), Effect.ignore)
    )
    yield* Effect.logInfo(`worker running (concurrency ${config.workerConcurrency})`)
  })
)
