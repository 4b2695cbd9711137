import { randomUUID } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AMOUNT, CHARGE_ENV, CHARGES, chargesThrough, expectChargedOnce } from "./support/charges.ts"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
import { sleep, until } from "./support/payments-fixtures.ts"
import { cardBody, newOrder, PROCESS } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

/**
 * Issue 19 item 5: the service SIGKILLed in the middle of concurrent charges and started again on the
 * same database. The dead process's Idempotency-Key claims are taken over by the first retry at once
 * (their owner's session advisory lock went with it, docs/operations.md), and resumed with the same
 * resource id as crash recovery does: no 409 `idempotency_key_in_use` for a minute, nothing charged
 * twice or lost.
 */
let databaseUrl: string
let env: Record<string, string>
const services: Array<RoleProcess> = []

beforeAll(async () => {
  databaseUrl = await createMigratedTestDatabase()
  env = { ...CHARGE_ENV, DATABASE_URL: databaseUrl }
}, 60_000)
afterAll(async () => {
  await stopAll(services)
})

describe(`the service SIGKILLed under ${CHARGES} concurrent charges, then started again`, () => {
  it("retries with the same keys get their outcome within 5 s of the restart; none doubled or lost", async () => {
    const first = await spawnRole("all", env, { readyTimeoutMs: 120_000 })
    services.push(first)
    const merchant = await signup(client(first.baseUrl))
    let restartedAfterMs = 0
    const { outcomes, answeredBefore, slowest } = await chargesThrough(
      client(first.baseUrl),
      merchant.key,
      async () => {
        first.child.kill("SIGKILL")
        const killedAt = Date.now()
        expect(await first.stop()).toBeNull()
        const second = await spawnRole("all", env, { readyTimeoutMs: 120_000 })
        services.push(second)
        restartedAfterMs = Date.now() - killedAt
        return client(second.baseUrl)
      }
    )
    console.log(
      `service SIGKILLed with ${answeredBefore}/${CHARGES} charges answered, ready again ${restartedAfterMs} ms ` +
        `later; every retried key's outcome within ${slowest.afterMs} ms of the restart ` +
        `(slowest key's attempts, status@ms: ${slowest.trail})`
    )
    for (const { afterMs, reply, trail } of outcomes) {
      expect(reply.status, reply.text).toBe(201)
      // Not one retry refused as still in flight: the dead process's claims were taken over at once.
      expect(trail).not.toContain("409@")
      expect(afterMs).toBeLessThan(5_000)
    }
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    try {
      await expectChargedOnce(db, merchant.accountId, outcomes)
    } finally {
      await db.end()
    }
  }, 240_000)
})

describe("two API processes on one database", () => {
  it("a live process's claim is not taken over; once it is SIGKILLed, the other's retry resumes it", async () => {
    const [a, b] = await Promise.all([
      spawnRole("api", env, { readyTimeoutMs: 120_000 }),
      spawnRole("api", env, { readyTimeoutMs: 120_000 })
    ])
    services.push(a, b)
    const merchant = await signup(client(a.baseUrl))
    const order = await newOrder(client(a.baseUrl), merchant.key, AMOUNT)
    const body = cardBody(order.orderId, AMOUNT)
    const idempotencyKey = randomUUID()
    const charge = (via: RoleProcess) =>
      client(via.baseUrl).post(PROCESS, body, { key: merchant.key, headers: { "idempotency-key": idempotencyKey } })
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    try {
      // Hold the order: A's charge claims the key, then waits inside its transaction.
      await db.query("begin")
      await db.query("select 1 from orders where id = $1 for update", [order.orderId])
      void charge(a).catch(() => undefined)
      // Its first write on the order (the row lock, or a foreign key's share lock on it) waits.
      await until(
        "A's charge waiting on the order",
        async () => {
          const found = await db.query(
            `select 1 from pg_stat_activity
             where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`
          )
          return found.rows.length > 0 ? true : undefined
        },
        30_000,
        50
      )
      // A is alive: its claim is its own, whichever process the retry reaches.
      const meanwhile = await charge(b)
      expect(meanwhile.status, meanwhile.text).toBe(409)
      expect(meanwhile.body.code).toBe("idempotency_key_in_use")

      a.child.kill("SIGKILL")
      expect(await a.stop()).toBeNull()
      const killedAt = Date.now()
      // B takes the claim over at once and resumes the same transaction id; it waits, as A's statement
      // still does, for the order, whose holder now lets go.
      const retry = charge(b)
      const early = await Promise.race([retry, sleep(1_000).then(() => undefined)])
      expect(early?.status, early?.text).toBeUndefined()
      await db.query("commit")
      const resumed = await retry
      const after = Date.now() - killedAt
      console.log(`the dead process's claim resumed by the other: ${resumed.status} ${after} ms after`)
      expect(resumed.status, resumed.text).toBe(201)
      await expectChargedOnce(db, merchant.accountId, [{ reply: resumed, orderId: order.orderId }])
      const replay = await charge(b)
      expect(replay.text).toBe(resumed.text)
    } finally {
      await db.query("rollback").catch(() => undefined)
      await db.end()
    }
  }, 180_000)
})
