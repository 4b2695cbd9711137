import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import {
  type Charge,
  chargePix,
  deliveries,
  jobs,
  type Merchant,
  newMerchant,
  registerWebhook,
  sleep,
  until
} from "./support/payments-fixtures.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"
import { type Receiver, startReceiver } from "./support/receiver.ts"
import { heartbeats as heartbeatsOf, startWorker as startWorkerOf } from "./support/workers.ts"

/**
 * Worker processes dying. One database, an API process and separate worker processes
 * (`src/main.ts api|worker`). A SIGKILLed worker's in-flight deliveries are released through the
 * heartbeats (worker_heartbeats) and delivered by a new worker: at-least-once. A SIGTERMed worker
 * finishes or releases its jobs and exits 0, leaving nothing locked.
 */

const CHARGES = 10

let db: pg.Pool
let env: Record<string, string>
let api: RoleProcess | undefined
const workers: RoleProcess[] = []
let receiver: Receiver
let merchant: Merchant

beforeAll(async () => {
  const databaseUrl = await createMigratedTestDatabase()
  env = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString("base64url"),
    CARD_VAULT_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_RETRY_SCHEDULE: "1,2,3",
    WEBHOOK_TIMEOUT_MS: "20000",
    WORKER_CONCURRENCY: String(CHARGES),
    RATE_LIMIT_PER_MINUTE: "100000"
  }
  ;[api, receiver] = await Promise.all([spawnRole("api", env), startReceiver()])
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  merchant = await newMerchant(api.baseUrl)
  await registerWebhook(merchant, receiver.url)
}, 90_000)

afterAll(async () => {
  await stopAll([api, ...workers])
  await receiver?.close()
  await db?.end()
})

const heartbeats = () => heartbeatsOf(db)
const startWorker = () => startWorkerOf(db, env, workers)

const lockedJobs = () => jobs(db, "locked_at is not null")

describe("worker crash and shutdown", () => {
  it(
    "SIGTERM while a delivery is in flight: exit 0 within seconds, the delivery " +
      "completes or is taken again, nothing stays locked",
    async () => {
      const { ids, worker } = await startWorker()
      receiver.respond({ status: 200, delayMs: 1_000 })
      const pix = await chargePix(merchant)
      const [inFlight] = await receiver
        .waitFor((rs) => rs.some((r) => r.body.includes(pix.transactionId)), 15_000, "the delivery in flight")
        .then((rs) => rs.filter((r) => r.body.includes(pix.transactionId)))
      const deliveryId = inFlight!.headers["webhook-id"]!

      const stopping = Date.now()
      const code = await worker.stop("SIGTERM")
      const took = Date.now() - stopping
      console.log(`worker exited with ${code} ${took} ms after SIGTERM`)
      expect(code, worker.output()).toBe(0)
      expect(took).toBeLessThan(8_000)

      // Nothing may stay locked by a worker that shut down cleanly (its heartbeats are gone, so a
      // lock left behind is only released by another worker's reaper 20-30 s later).
      expect(await lockedJobs(), "jobs left locked by a worker stopped with SIGTERM").toEqual([])
      const beats = await heartbeats()
      expect(
        ids.filter((id) => beats.has(id)),
        "heartbeats of the stopped worker"
      ).toEqual([])

      let record = (await deliveries(merchant)).find((d) => d.deliveryId === deliveryId)
      console.log(`in-flight delivery after shutdown: ${record?.status}`)
      if (record?.status !== "SUCCESS") {
        // Released rather than finished: a new worker takes it at once (it is not locked).
        expect(record?.status).toBe("PENDING")
        await startWorker()
        record = await until(
          "the released delivery delivered",
          async () => {
            const d = (await deliveries(merchant)).find((x) => x.deliveryId === deliveryId)
            return d?.status === "SUCCESS" ? d : undefined
          },
          15_000
        )
      }
      expect(record).toMatchObject({ status: "SUCCESS", httpStatus: 200 })
      expect(
        receiver.requests.some((r) => r.headers["webhook-id"] === deliveryId && r.answeredStatus === 200 && r.completed)
      ).toBe(true)
      await Promise.all(workers.map((w) => w.stop("SIGTERM")))
    },
    60_000
  )

  it(`SIGKILL with ${CHARGES} deliveries in flight: a new worker delivers every event at least once`, async () => {
    const seenBefore = receiver.requests.length
    const { worker } = await startWorker()
    receiver.respond({ hang: true })
    const charges: Charge[] = []
    for (let i = 0; i < CHARGES; i++) charges.push(await chargePix(merchant, 1_000 + i))
    const ours = (body: string) => charges.some((c) => body.includes(c.transactionId))
    await receiver.waitFor((rs) => rs.filter((r) => ours(r.body)).length >= CHARGES, 20_000, "every delivery in flight")
    const deliveryIds = new Set(receiver.requests.filter((r) => ours(r.body)).map((r) => r.headers["webhook-id"]!))
    expect(deliveryIds.size).toBe(CHARGES)
    const lockedOurs = async () =>
      (await lockedJobs()).filter(
        (j) => j.task_identifier === "deliver_webhook" && deliveryIds.has(j.payload?.deliveryId)
      )
    expect(await lockedOurs()).toHaveLength(CHARGES)

    worker.child.kill("SIGKILL")
    expect(await worker.stop()).toBeNull() // died from the signal
    const killedAt = Date.now()
    receiver.respond({ status: 200 })
    await sleep(200)
    // The dead worker's sockets are gone; nothing was answered.
    for (const r of receiver.requests.slice(seenBefore)) {
      expect(r.answeredStatus).toBeUndefined()
      expect(r.closedAt).toBeDefined()
    }
    expect(await lockedOurs(), "still locked by the dead worker").toHaveLength(CHARGES)

    await startWorker()
    const delivered = await until(
      "every delivery SUCCESS",
      async () => {
        const list = (await deliveries(merchant, "?event=transaction.created")).filter((d) =>
          deliveryIds.has(d.deliveryId)
        )
        return list.length === CHARGES && list.every((d) => d.status === "SUCCESS") ? list : undefined
      },
      60_000,
      500
    )
    console.log(`all ${CHARGES} deliveries recovered ${Date.now() - killedAt} ms after the SIGKILL`)

    for (const c of charges) {
      const requests = receiver.requests.filter((r) => r.body.includes(c.transactionId))
      const ids = new Set(requests.map((r) => r.headers["webhook-id"]))
      expect(ids.size, `one delivery id for ${c.transactionId}`).toBe(1)
      expect(
        requests.some((r) => r.answeredStatus === 200 && r.completed),
        `a 200 for ${c.transactionId}`
      ).toBe(true)
      expect(delivered.some((d) => ids.has(d.deliveryId))).toBe(true)
    }
    expect(await lockedOurs()).toEqual([])
  }, 120_000)
})
