import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
import { eventually, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"
import { type Receiver, startReceiver } from "./support/receiver.ts"

/**
 * Issue 11: two API and two worker processes on one PostgreSQL (docs/scaling.md). The rate limit is
 * exact across the APIs, a key regenerated on one is refused by the other at once, every webhook is
 * delivered once by one of the workers, and killing a worker loses nothing. Each worker serves its own
 * /metrics (docs/operations.md "Metrics"), where its delivery and job counters are scraped.
 */
const apis: Array<RoleProcess> = []
const workers: Array<RoleProcess> = []
let receiver: Receiver
let db: pg.Pool
let env: Record<string, string>

beforeAll(async () => {
  env = {
    DATABASE_URL: await createMigratedTestDatabase(),
    JWT_SECRET: randomBytes(32).toString("base64url"),
    CARD_VAULT_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    RATE_LIMIT_PER_MINUTE: "100000"
  }
  // The database is migrated already (a copy of the run's template): the four start side by side.
  ;[apis[0], apis[1], workers[0], workers[1], receiver] = await Promise.all([
    spawnRole("api", env),
    spawnRole("api", env),
    spawnRole("worker", env),
    spawnRole("worker", env),
    startReceiver()
  ])
  db = new pg.Pool({ connectionString: env.DATABASE_URL, max: 2 })
}, 120_000)
afterAll(async () => {
  await stopAll([...apis, ...workers])
  await receiver?.close()
  await db?.end()
})

/** The sum of a metric's samples whose labels contain `labels`, in a /metrics text. */
const total = (text: string, name: string, labels: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) && l.includes(labels))
    .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0)

describe("two API and two worker processes on one PostgreSQL", () => {
  it("the rate limit is exact across both APIs", async () => {
    const a = client(apis[0]!.baseUrl)
    const b = client(apis[1]!.baseUrl)
    const { key } = await signup(a)
    await db.query("update api_keys set rate_limit = 7 where key_prefix = $1", [key.slice(0, 16)])
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).get("/api/customers", { key }))
    )
    expect(replies.filter((r) => r.status === 200)).toHaveLength(7)
    expect(replies.filter((r) => r.status === 429)).toHaveLength(13)
  })

  it("a key regenerated through one API is refused by the other at once", async () => {
    const a = client(apis[0]!.baseUrl)
    const b = client(apis[1]!.baseUrl)
    const account = await signup(a)
    expect((await b.get("/api/customers", { key: account.key })).status).toBe(200)
    const regenerated = await a.post("/api/api-keys/me/regenerate", undefined, { token: account.token })
    expect(regenerated.status).toBe(200)
    expect((await b.get("/api/customers", { key: account.key })).status).toBe(401)
    expect((await b.get("/api/customers", { key: regenerated.body.fullKey })).status).toBe(200)
  })

  it("each worker serves /metrics on its own listener: the worker-only counters reach Prometheus", async () => {
    // docs/operations.md "Metrics": webhook_deliveries_total, job_runs_total and ledger_imbalance_centavos
    // change only in the worker; with workers serving no /metrics, GatewayWebhookFailures,
    // GatewayScheduledJobFailing and GatewayLedgerImbalance (ops/alerts.yml) could never fire here.
    const api = client(apis[0]!.baseUrl)
    const { key } = await signup(api)
    expect((await api.post("/api/webhooks/upsert", { url: receiver.url }, { key })).status).toBe(201)
    const { orderId } = await newOrder(api, key, 1_000)
    const charge = await api.post(PROCESS, pixBody(orderId, 1_000), { key })
    expect(charge.status).toBe(201)
    await receiver.waitFor((all) => all.some((r) => r.body.includes(charge.body.transactionId)), 30_000, "a delivery")
    const scrape = (p: RoleProcess) => fetch(p.metricsUrl).then((r) => r.text())
    // The job's run is counted once its task returns, a moment after the delivery it recorded: both awaited.
    const ran = /^job_runs_total\{[^}]*task="deliver_webhook"[^}]*\} [1-9]/m
    const delivered = await eventually(async () => {
      const texts = await Promise.all(workers.map(scrape))
      const sum = texts.reduce((n, text) => n + total(text, "webhook_deliveries_total", 'outcome="delivered"'), 0)
      return sum > 0 && ran.test(texts.join("\n")) ? texts : undefined
    }, 10_000)
    // Each worker exposes its own counters and the shared gauges (sampled from the database on scrape).
    for (const text of delivered) {
      expect(text).toMatch(/^# TYPE job_runs_total counter$/m)
      expect(text).toMatch(/^ledger_imbalance_centavos 0$/m)
      expect(text).toMatch(/^jobs_oldest_pending_age_seconds /m)
    }
    expect(delivered.join("\n")).toMatch(ran)
    // The APIs deliver nothing: the count is the workers' alone, summed across processes.
    for (const p of apis) expect(total(await scrape(p), "webhook_deliveries_total", "outcome=")).toBe(0)
  }, 60_000)

  it("each webhook is delivered once by one of the workers, and killing one worker loses nothing", async () => {
    const api = client(apis[0]!.baseUrl)
    const { key } = await signup(api)
    expect((await api.post("/api/webhooks/upsert", { url: receiver.url }, { key })).status).toBe(201)
    const charges = 30
    const ids: Array<string> = []
    for (let i = 0; i < charges; i++) {
      const { orderId } = await newOrder(api, key, 1_000 + i)
      const reply = await api.post(PROCESS, pixBody(orderId, 1_000 + i), { key })
      ids.push(reply.body.transactionId)
      if (i === 10) await workers[0]!.stop("SIGKILL") // a hard kill while deliveries are under way
    }
    // 30 created + 30 paid events, each delivered exactly once, whatever the kill.
    for (const id of ids) await api.post(`/api/sandbox/transactions/${id}/pay`, undefined, { key })
    const expected = charges * 2
    const requests = await receiver.waitFor(
      (all) =>
        new Set(all.filter((r) => ids.some((id) => r.body.includes(id))).map((r) => r.headers["webhook-id"])).size >=
        expected,
      60_000,
      "every event delivered"
    )
    // A delivery the killed worker sent but never recorded is the receiver's already; its job comes back
    // to the survivor once the reaper finds the worker dead (STALE_SECONDS), which sends it again.
    await eventually(async () => {
      const open = await db.query("select count(*)::int as n from webhook_deliveries where status <> 'SUCCESS'")
      return open.rows[0].n === 0 ? true : undefined
    }, 60_000)
    await new Promise((resolve) => setTimeout(resolve, 1_000)) // room for a duplicate
    const mine = receiver.requests.filter((r) => ids.some((id) => r.body.includes(id)))
    const perDelivery = new Map<string, number>()
    for (const r of mine)
      perDelivery.set(r.headers["webhook-id"]!, (perDelivery.get(r.headers["webhook-id"]!) ?? 0) + 1)
    expect(perDelivery.size).toBe(expected)
    const duplicates = [...perDelivery.values()].filter((n) => n > 1).length
    // At-least-once: a delivery in flight in the killed worker may be sent again, nothing else.
    expect(duplicates).toBeLessThanOrEqual(10)
    expect(requests.length).toBeGreaterThanOrEqual(expected)
    const failed = await db.query("select count(*)::int as n from webhook_deliveries where status <> 'SUCCESS'")
    expect(failed.rows[0].n).toBe(0)
  }, 120_000)
})
