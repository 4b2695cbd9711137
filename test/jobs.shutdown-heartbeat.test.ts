import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import {
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
 * A worker stopping gracefully keeps its running jobs (docs/scaling.md: only a SIGKILLed worker's jobs are
 * released, after 20 s of silent heartbeats). On SIGTERM, runner.stop() waits for the running jobs; the
 * worker must keep beating until it has returned (src/adapters/postgres/GraphileWorker.ts). It once deleted
 * its heartbeats and stopped beating first: another worker's reaper took the draining worker's job for a
 * dead worker's (locked > 20 s, no heartbeat) and sent the same delivery again 22-24 s after the first
 * while the first send was still open.
 *
 * Slow by nature (~45 s): the race needs a job running longer than the reaper's threshold (20 s) plus its
 * period (10 s), so the first send is answered after 32 s and watched for a second one until 30 s.
 */

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
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_RETRY_SCHEDULE: "1,2,3",
    // A receiver that takes its time (allowed up to a minute), and a worker allowed to drain for as long.
    WEBHOOK_TIMEOUT_MS: "60000",
    SHUTDOWN_GRACE_SECONDS: "60",
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

describe("a worker draining after SIGTERM", () => {
  it("keeps beating: its running job is not handed to another worker, and runs once", async () => {
    const { worker: a, ids: aIds } = await startWorker()
    // The first request is answered after 32 s; any later one at once.
    receiver.script({ status: 200, delayMs: 32_000 })
    receiver.respond({ status: 200 })
    const pix = await chargePix(merchant)
    const [first] = await receiver.waitFor(
      (rs) => rs.some((r) => r.body.includes(pix.transactionId)),
      15_000,
      "the delivery in flight on worker A"
    )
    const deliveryId = first!.headers["webhook-id"]!
    const sentAt = Date.now()

    // B's reaper is the one that would take A's job (A's own reaper stops with A).
    await startWorker()
    // Graceful stop of A: it waits for its running delivery (graphile-worker's runner.stop()). a.stop()
    // would SIGKILL it after 10 s: the signal is sent by hand, the exit awaited below.
    const exited = new Promise<number | null>((resolve) => a.child.once("exit", (code) => resolve(code)))
    const termAt = Date.now()
    a.child.kill("SIGTERM")

    // Watch for up to 30 s after the first send, i.e. while A's first request is still open (32 s).
    let second: (typeof receiver.requests)[number] | undefined
    while (Date.now() - sentAt < 30_000) {
      second = receiver.requests.find((r) => r.headers["webhook-id"] === deliveryId && r !== first)
      if (second) break
      await sleep(250)
    }
    const aAliveThen = a.child.exitCode === null && a.child.signalCode === null
    const beatsThen = await heartbeats()
    console.log(
      `second send of ${deliveryId}: ${second ? `${second.arrivedAt - sentAt} ms after the first` : "none"}; ` +
        `A still running then: ${aAliveThen}; A's heartbeat then: ${aIds.some((id) => beatsThen.has(id))}`
    )
    expect(aAliveThen, "worker A was still draining (graceful stop) at the end of the watch").toBe(true)
    expect(second, "the same delivery sent again by another worker while worker A was still running it").toBeUndefined()
    expect(
      aIds.filter((id) => beatsThen.has(id)),
      "the draining worker's heartbeat"
    ).toEqual(aIds)

    const code = await exited
    console.log(`A: SIGTERM ${termAt - sentAt} ms after the first send, exit ${code} at ${Date.now() - sentAt} ms`)
    expect(code, a.output()).toBe(0)
    expect(first!.answeredStatus).toBe(200)
    // A finished the job before exiting: the delivery is done, nothing stays locked, A's heartbeat is gone.
    const record = await until(
      "the delivery recorded",
      async () => (await deliveries(merchant)).find((d) => d.deliveryId === deliveryId && d.status === "SUCCESS"),
      5_000
    )
    expect(record).toMatchObject({ status: "SUCCESS", httpStatus: 200 })
    expect(await jobs(db, "locked_by = any($1)", [aIds]), "jobs left locked by the stopped worker").toEqual([])
    const beatsAfter = await heartbeats()
    expect(
      aIds.filter((id) => beatsAfter.has(id)),
      "heartbeats of the stopped worker"
    ).toEqual([])
    expect(receiver.requests.filter((r) => r.headers["webhook-id"] === deliveryId)).toHaveLength(1)
  }, 120_000)
})
