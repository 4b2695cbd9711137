import type pg from "pg"
import { until } from "./payments-fixtures.ts"
import { type RoleProcess, spawnRole } from "./processes.ts"

/** The worker ids beating now (`worker_heartbeats`, src/adapters/postgres/GraphileWorker.ts). */
export const heartbeats = async (db: pg.Pool) =>
  new Set(
    (await db.query<{ worker_id: string }>("select worker_id from worker_heartbeats")).rows.map((r) => r.worker_id)
  )

/**
 * Starts a worker process with `env`, adds it to `started` (for the test's stopAll), and resolves once it
 * beats (its graphile-worker pool is running), with the ids it beats under.
 */
export const startWorker = async (db: pg.Pool, env: Record<string, string>, started: Array<RoleProcess>) => {
  const known = await heartbeats(db)
  const worker = await spawnRole("worker", env)
  started.push(worker)
  const ids = await until(
    "the new worker's heartbeat",
    async () => {
      if (worker.child.exitCode !== null) throw new Error(`worker exited ${worker.child.exitCode}\n${worker.output()}`)
      const fresh = [...(await heartbeats(db))].filter((id) => !known.has(id))
      return fresh.length > 0 ? fresh : undefined
    },
    30_000,
    200
  )
  return { worker, ids }
}
