import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { type Merchant, newMerchant, until } from "./support/payments-fixtures.ts"
import { freshCpf } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

/**
 * A worker SIGKILLed in the middle of a settlement (issue 9): the settlement's entry is written and
 * its postings are being applied when the process dies. Nothing may be half-moved: the database
 * transaction never commits, and a new worker settles the receivable exactly once.
 */

let db: pg.Pool
let env: Record<string, string>
let api: RoleProcess | undefined
const workers: Array<RoleProcess> = []
let merchant: Merchant

beforeAll(async () => {
  const databaseUrl = await createMigratedTestDatabase()
  env = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString("base64url"),
    CARD_VAULT_KEY: randomBytes(32).toString("base64"),
    RATE_LIMIT_PER_MINUTE: "100000",
    SETTLEMENT_DAYS_CREDIT_CARD: "1"
  }
  api = await spawnRole("api", env)
  db = new pg.Pool({ connectionString: databaseUrl, max: 4 })
  merchant = await newMerchant(api.baseUrl)
}, 90_000)

afterAll(async () => {
  await stopAll([api, ...workers])
  await db?.end()
})

const balances = async () => ({
  available: 0,
  pending: 0,
  reserved: 0,
  ...Object.fromEntries(
    (
      await db.query<{ book: string; amount: string }>(
        "select book, amount from ledger_balances where account_id = $1 and party = 'merchant'",
        [merchant.accountId]
      )
    ).rows.map((r) => [r.book, Number(r.amount)])
  )
})

describe("a worker killed mid-settlement", () => {
  it("leaves no half-moved money, and a new worker settles the receivable exactly once", async () => {
    const sale = await merchant.api.post(
      "/public/v1/transactions",
      {
        method: "credit_card",
        amount: 10_000,
        installments: 1,
        customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" },
        card: {
          number: "4242424242424242",
          holder_name: "MARIA SILVA",
          exp_month: "12",
          exp_year: String(new Date().getUTCFullYear() + 3),
          cvv: "123"
        }
      },
      { token: merchant.key }
    )
    expect(sale.status, sale.text).toBe(201)
    const hash = sale.body.data.hash
    const { rows } = await db.query("select id, amount from receivables where transaction_id = $1", [hash])
    const receivable = rows[0]
    const amount = Number(receivable.amount)
    const before = await balances()
    expect(before).toMatchObject({ pending: amount, available: 0 })

    // Hold the merchant's available balance row: the settlement inserts its entry, then waits in the
    // posting trigger that moves that row — the middle of the movement.
    const blocker = await db.connect()
    await blocker.query("begin")
    await blocker.query(
      `insert into ledger_balances (account_id, party, book) values ($1, 'merchant', 'available')
       on conflict do nothing`,
      [merchant.accountId]
    )
    await blocker.query(
      "select 1 from ledger_balances where account_id = $1 and party = 'merchant' and book = 'available' for update",
      [merchant.accountId]
    )
    const worker = await spawnRole("worker", env)
    workers.push(worker)
    // Due now: the job keyed by the receivable is replaced, so there is still exactly one.
    await db.query(
      `select graphile_worker.add_job('settle_receivable', json_build_object('accountId', $1::text,
         'receivableId', $2::text), run_at := now(), job_key := $3, max_attempts := 25)`,
      [merchant.accountId, receivable.id, `settle:${receivable.id}`]
    )
    const waiting = await until(
      "the settlement waiting inside its transaction",
      async () => {
        const found = await db.query(
          `select pid from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query ilike '%ledger_postings%'`
        )
        return found.rows.length > 0 ? found.rows : undefined
      },
      30_000,
      100
    )
    expect(waiting).toHaveLength(1)

    worker.child.kill("SIGKILL")
    expect(await worker.stop()).toBeNull()
    await blocker.query("commit")
    blocker.release()
    // The dead worker's statement completes but its COMMIT never comes: the backend rolls it back.
    await until(
      "the dead worker's transaction gone",
      async () => {
        const left = await db.query(
          "select 1 from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'"
        )
        return left.rows.length === 0 ? true : undefined
      },
      15_000
    )
    const entries = async () =>
      Number(
        (await db.query("select count(*) from ledger_entries where key = $1", [`settle:${receivable.id}`])).rows[0]
          .count
      )
    expect(await entries()).toBe(0)
    expect(await balances()).toMatchObject({ pending: amount, available: 0 })

    // A new worker's reaper releases the dead worker's job; it settles once.
    workers.push(await spawnRole("worker", env))
    await until(
      "the receivable settled by the new worker",
      async () => {
        const r = await db.query("select settled_at from receivables where id = $1", [receivable.id])
        return r.rows[0].settled_at !== null ? true : undefined
      },
      60_000,
      250
    )
    expect(await entries()).toBe(1)
    expect(await balances()).toMatchObject({ pending: 0, available: amount })
  }, 120_000)
})
