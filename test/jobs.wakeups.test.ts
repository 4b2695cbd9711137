import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { until } from "./support/payments-fixtures.ts"
import { spawnRole, stopAll, type RoleProcess } from "./support/processes.ts"

/**
 * The worker's wake-ups (docs/performance.md "The worker's wake-ups"): graphile-worker notifies every
 * worker of every job added, whatever its run_at, so each PIX charge (its expiry due in an hour) woke the
 * worker into a query that found nothing. With WORKER_REFETCH_DELAY_MS a fetch that finds nothing starts
 * a pause in which notices are counted instead; a job that is due still runs at once after it.
 * `job_fetches_total{found}` on /metrics shows both.
 */

const JOBS = 300
const POLL_MS = 60_000

let db: pg.Pool
let env: Record<string, string>
const started: RoleProcess[] = []

beforeAll(async () => {
  const databaseUrl = await createMigratedTestDatabase()
  env = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString("base64url"),
    CARD_VAULT_KEY: randomBytes(32).toString("base64")
  }
  db = new pg.Pool({ connectionString: databaseUrl, max: 1 })
}, 60_000)

afterAll(async () => {
  await stopAll(started)
  await db?.end()
})

const counter = async (service: RoleProcess, name: string, labels: string) => {
  const text = await (await fetch(service.metricsUrl)).text()
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

/** JOBS jobs due in an hour, each added in its own transaction (as charges do), then the fetches they caused. */
const emptyFetchesFor = async (refetchDelayMs: string) => {
  // No poll for a minute: a job that runs sooner was woken by its notice, which is what the pause must let through.
  const service = await spawnRole("all", {
    ...env,
    WORKER_REFETCH_DELAY_MS: refetchDelayMs,
    WORKER_POLL_INTERVAL_MS: String(POLL_MS)
  })
  started.push(service)
  // The worker's first fetches at start (and the crontab's) are not ours.
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const before = await counter(service, "job_fetches_total", 'found="no"')
  for (let i = 0; i < JOBS; i++) {
    await db.query(`select graphile_worker.add_job('cleanup', '{}'::json, run_at => now() + interval '1 hour')`)
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const empty = (await counter(service, "job_fetches_total", 'found="no"')) - before
  return { service, empty }
}

it("a burst of jobs due later wakes the worker a few times, not one per job; due jobs run at once", async () => {
  const off = await emptyFetchesFor("0")
  await off.service.stop("SIGTERM")
  const on = await emptyFetchesFor("50")
  // Without the pause nearly every notice is a query that finds nothing; with it, a handful.
  expect(off.empty).toBeGreaterThan(JOBS / 4)
  expect(on.empty).toBeLessThan(off.empty / 4)

  // Right after the burst (the worker paused on an empty fetch), a job due now runs on its notice, not at the
  // next poll a minute away. The bound is the mechanism's, not a speed: a loaded machine took 1,006 ms once,
  // against a bound of a second that the default poll (500 ms) could also have met.
  const runs = await counter(on.service, "job_runs_total", 'task="cleanup",outcome="success"')
  const t0 = Date.now()
  await db.query(`select graphile_worker.add_job('cleanup', '{}'::json)`)
  await until(
    "the due job's run",
    async () =>
      (await counter(on.service, "job_runs_total", 'task="cleanup",outcome="success"')) > runs ? true : undefined,
    10_000,
    20
  )
  expect(Date.now() - t0).toBeLessThan(POLL_MS / 6)
}, 120_000)
