import { randomBytes, randomUUID } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { until } from "./support/payments-fixtures.ts"
import { type RoleProcess, stopAll } from "./support/processes.ts"
import { startWorker } from "./support/workers.ts"

/**
 * ledger_imbalance_centavos across two workers, aggregated as docs/operations.md "Metrics" says (`max`: the
 * rule `max(ledger_imbalance_centavos) > 0` in ops/alerts.yml). The hourly check runs on one worker at a time;
 * its result is recorded in the database (migration 0054) and every process reports the last one recorded,
 * so once the books are mended and the next check (on the other worker) finds nothing, every worker says 0
 * and the page clears, instead of the first worker repeating its stale finding until it next runs the check.
 */
const started: Array<RoleProcess> = []
let db: pg.Pool
let env: Record<string, string>
const accountId = randomUUID()

beforeAll(async () => {
  env = { DATABASE_URL: await createMigratedTestDatabase(), JWT_SECRET: randomBytes(32).toString("base64url") }
  db = new pg.Pool({ connectionString: env.DATABASE_URL, max: 2 })
  await db.query(`insert into accounts (id, name, email, password_hash) values ($1, 'Loja', $2, 'x')`, [
    accountId,
    `imbalance-${accountId}@example.com`
  ])
}, 60_000)
afterAll(async () => {
  for (const w of started) if (w.child.pid !== undefined && w.child.exitCode === null) w.child.kill("SIGCONT")
  await stopAll(started)
  // Leave the books balanced for the suite's end-of-run check.
  await db?.query("delete from ledger_balances where account_id = $1", [accountId]).catch(() => undefined)
  await db?.end()
})

const gauge = async (w: RoleProcess, name: string) => {
  const text = await (await fetch(w.metricsUrl)).text()
  const line = text.split("\n").find((l) => l.startsWith(`${name} `))
  return line === undefined ? undefined : Number(line.split(" ").at(-1))
}

const runCheck = async () => {
  const { rows } = await db.query<{ id: string }>(
    `select id::text from graphile_worker.add_job('ledger_check', '{}'::json, max_attempts := 1)`
  )
  const id = rows[0]!.id
  await until(
    "the ledger_check job done",
    async () =>
      (await db.query("select 1 from graphile_worker.jobs where id = $1", [id])).rowCount === 0 ? true : undefined,
    20_000,
    100
  )
}

describe("ledger_imbalance_centavos: the last check recorded, reported by every process", () => {
  it("once the books are mended and the next check, on the other worker, finds nothing, both report 0", async () => {
    const { worker: a } = await startWorker(db, env, started)
    // The books off by 123 centavos: a balance no posting explains.
    await db.query(
      `insert into ledger_balances (account_id, party, book, amount, updated_at)
       values ($1, 'merchant', 'available', 123, now())`,
      [accountId]
    )
    await runCheck()
    expect(await gauge(a, "ledger_imbalance_centavos")).toBe(123)
    const firstCheckAt = await gauge(a, "ledger_check_timestamp_seconds")
    expect.soft(firstCheckAt).toBeGreaterThan(0)

    // A worker started after the check reports it too: it is the database's, not the process's.
    const { worker: b } = await startWorker(db, env, started)
    expect.soft(await gauge(b, "ledger_imbalance_centavos")).toBe(123)

    // Worker A busy elsewhere (here: paused) when the next hour's check is due: B runs it.
    a.child.kill("SIGSTOP")
    try {
      await db.query("delete from ledger_balances where account_id = $1", [accountId]) // mended
      await runCheck()
    } finally {
      a.child.kill("SIGCONT")
    }
    const perWorker = [await gauge(a, "ledger_imbalance_centavos"), await gauge(b, "ledger_imbalance_centavos")]
    // What Prometheus computes for GatewayLedgerImbalance: max(ledger_imbalance_centavos) > 0 pages.
    expect(perWorker, "per worker: the page would stay on with the books balanced").toEqual([0, 0])
    const checkedAt = [
      await gauge(a, "ledger_check_timestamp_seconds"),
      await gauge(b, "ledger_check_timestamp_seconds")
    ]
    expect(checkedAt[0]).toBe(checkedAt[1])
    expect(checkedAt[0]).toBeGreaterThan(firstCheckAt!)
  }, 90_000)
})
