import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CHARGE_ENV, CHARGES, chargesThrough, expectChargedOnce } from "./support/charges.ts"
import { createTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
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
  databaseUrl = await createTestDatabase()
  env = { ...CHARGE_ENV, DATABASE_URL: databaseUrl }
}, 60_000)
afterAll(async () => {
  await stopAll(services)
})

describe(`the service SIGKILLed under ${CHARGES} concurrent charges, then started again`, () => {
  it("retries with the same keys get their outcome within 5 s of the restart; none doubled or lost", async () => {
    const first = await spawnRole("all", env, { readyTimeoutMs: 60_000 })
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
        const second = await spawnRole("all", env, { readyTimeoutMs: 60_000 })
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
    for (const { afterMs, reply } of outcomes) {
      expect(reply.status, reply.text).toBe(201)
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
