import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, type Client, type Reply, signup } from "./support/http.ts"
import { type RoleProcess, runCli, spawnRole, stopAll } from "./support/processes.ts"

/**
 * CONTRACT §5 across processes: two `api` processes on one database share each key's exact rolling
 * 60-second window (the state lives in PostgreSQL). The long test waits for the real window to roll,
 * so it takes about a minute.
 */

const LIMIT = 20
const WINDOW_MS = 60_000

let databaseUrl: string
let env: Record<string, string>
let a: RoleProcess | undefined
let b: RoleProcess | undefined
let db: pg.Pool | undefined
let apiA: Client
let apiB: Client

beforeAll(async () => {
  databaseUrl = await createMigratedTestDatabase()
  env = {
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    // Shared secrets, as a real deployment of several processes has: a token issued by A is valid on B.
    JWT_SECRET: randomBytes(32).toString("base64url"),
    CARD_VAULT_KEY: randomBytes(32).toString("base64")
  }
  // The database is migrated already (a copy of the run's template): both start side by side.
  ;[a, b] = await Promise.all([spawnRole("api", env), spawnRole("api", env)])
  apiA = client(a.baseUrl)
  apiB = client(b.baseUrl)
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
}, 90_000)

afterAll(async () => {
  await db?.end()
  await stopAll([a, b])
}, 30_000)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const sleepUntil = (at: number) => sleep(Math.max(0, at - Date.now()))

const customers = (api: Client, key: string) => api.get("/api/customers", { key })

const primaryKeyId = async (accountId: string): Promise<string> => {
  const { rows } = await db!.query<{ id: string }>("select id from api_keys where account_id = $1 and is_primary", [
    accountId
  ])
  expect(rows).toHaveLength(1)
  return rows[0]!.id
}

const hitsOf = async (keyId: string): Promise<number> => {
  const { rows } = await db!.query<{ n: number }>("select count(*)::int as n from rate_limit_hits where key_id = $1", [
    keyId
  ])
  return rows[0]!.n
}

/** A header that must be a whole number of seconds; fails the test otherwise. */
const seconds = (reply: Reply, name: string): number => {
  const raw = reply.headers.get(name)
  expect(raw, `${name} header`).toMatch(/^\d+$/)
  return Number(raw)
}

/** CONTRACT §5: the 429 headers and body, with `retryAfter` equal to `Retry-After`. Returns Retry-After. */
const expectRejected = (reply: Reply, limit: number): number => {
  expect(reply.status, reply.text).toBe(429)
  const retryAfter = seconds(reply, "retry-after")
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(60)
  expect(reply.headers.get("ratelimit-limit")).toBe(String(limit))
  expect(reply.headers.get("ratelimit-remaining")).toBe("0")
  expect(seconds(reply, "ratelimit-reset")).toBeGreaterThanOrEqual(1)
  expect(reply.body).toEqual({
    statusCode: 429,
    error: "Too Many Requests",
    message: expect.stringMatching(/\S/),
    code: "rate_limit_exceeded",
    retryAfter
  })
  return retryAfter
}

/** An accepted API-key request: its RateLimit-* headers. Returns RateLimit-Remaining. */
const expectAccepted = (reply: Reply, limit: number): number => {
  expect(reply.status, reply.text).toBe(200)
  expect(reply.headers.get("ratelimit-limit")).toBe(String(limit))
  expect(reply.headers.get("retry-after")).toBeNull()
  const reset = seconds(reply, "ratelimit-reset")
  expect(reset).toBeGreaterThanOrEqual(1)
  expect(reset).toBeLessThanOrEqual(60)
  return seconds(reply, "ratelimit-remaining")
}

describe("rate limiting across two API processes (CONTRACT §5)", () => {
  it("limits a key of 3 to exactly 3 accepted requests, whichever process serves them", async () => {
    const account = await signup(apiA, "Loja Três")
    // A restricted key with its own limit, through the operator CLI (a third process on the same database).
    const key = await runCli<{ fullKey: string; rateLimit: number }>(
      [
        "keys",
        "create",
        "--account",
        account.email,
        "--scopes",
        "customers:read",
        "--rate-limit",
        "3",
        "--label",
        "limit three"
      ],
      { DATABASE_URL: databaseUrl }
    )
    expect(key.rateLimit).toBe(3)

    const replies: Array<Reply> = []
    for (let i = 0; i < 8; i++) replies.push(await customers(i % 2 === 0 ? apiA : apiB, key.fullKey))

    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429, 429, 429, 429, 429])
    // One window: the remaining count goes down across A, B, A, whatever the processes' own default (20).
    expect(replies.slice(0, 3).map((r) => expectAccepted(r, 3))).toEqual([2, 1, 0])
    for (const reply of replies.slice(3)) expectRejected(reply, 3)

    // The account's primary key has a window of its own.
    const primary = await customers(apiB, account.key)
    expect(expectAccepted(primary, LIMIT)).toBe(LIMIT - 1)
  })

  it(
    "accepts exactly `limit` of a concurrent burst over both, answers 429 + " +
      "Retry-After, and recovers when the window rolls",
    async () => {
      const first = await signup(apiA, "Loja Um")
      const second = await signup(apiA, "Loja Dois")
      const firstKeyId = await primaryKeyId(first.accountId)
      expect(await hitsOf(firstKeyId)).toBe(0)

      // 1. A burst of 30 concurrent requests, alternating between A and B: exactly 20 accepted.
      const targets = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? "A" : "B"))
      const burstStart = Date.now()
      const burst = await Promise.all(targets.map((t) => customers(t === "A" ? apiA : apiB, first.key)))
      const burstEnd = Date.now()
      console.log(`burst of 30 over A and B answered in ${burstEnd - burstStart} ms`)

      const accepted = burst.filter((r) => r.status === 200)
      const rejected = burst.filter((r) => r.status === 429)
      expect(burst.map((r) => r.status).filter((s) => s !== 200 && s !== 429)).toEqual([])
      expect(accepted).toHaveLength(LIMIT)
      expect(rejected).toHaveLength(30 - LIMIT)
      // 15 went to each process; a per-process window would have accepted all 30. Both served some.
      const acceptedOn = (t: string) => burst.filter((r, i) => r.status === 200 && targets[i] === t).length
      expect(acceptedOn("A")).toBeGreaterThan(0)
      expect(acceptedOn("B")).toBeGreaterThan(0)

      // Each accepted request got its own slot: Remaining over the 20 is exactly 0..19.
      const remaining = accepted.map((r) => expectAccepted(r, LIMIT)).sort((x, y) => x - y)
      expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => i))

      // Each 429: headers and body; Retry-After is the time until the oldest accepted request leaves the window.
      const retryAfters = rejected.map((r) => expectRejected(r, LIMIT))
      const burstSeconds = (burstEnd - burstStart) / 1000
      for (const retryAfter of retryAfters) expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(60 - burstSeconds))
      const initialRetry = Math.min(...retryAfters)
      expect(await hitsOf(firstKeyId)).toBe(LIMIT) // the 10 refusals left no trace in the window

      // 2. Another account's key is not affected by the first key's exhaustion, on either process.
      expect(expectAccepted(await customers(apiB, second.key), LIMIT)).toBe(LIMIT - 1)
      expect(expectAccepted(await customers(apiA, second.key), LIMIT)).toBe(LIMIT - 2)

      // 3. Refused requests do not consume the window: two seconds later, still 429, and the wait has shrunk.
      await sleep(2_000)
      const probes: Array<{ sentAt: number; retryAfter: number }> = []
      for (let i = 0; i < 6; i++) {
        const sentAt = Date.now()
        const reply = await customers(i % 2 === 0 ? apiA : apiB, first.key)
        probes.push({ sentAt, retryAfter: expectRejected(reply, LIMIT) })
      }
      for (const probe of probes) expect(probe.retryAfter).toBeLessThanOrEqual(initialRetry - 2)
      expect(await hitsOf(firstKeyId)).toBe(LIMIT)

      // 4. Retry-After is exact to the second: two seconds before it runs out the key is still refused …
      const last = probes.at(-1)!
      expect(last.retryAfter).toBeGreaterThan(3)
      await sleepUntil(last.sentAt + (last.retryAfter - 2) * 1_000)
      const early = expectRejected(await customers(apiB, first.key), LIMIT)
      expect(early).toBeGreaterThanOrEqual(1)
      expect(early).toBeLessThanOrEqual(3)

      // … and once it has run out, a request is accepted again (had any refusal counted, the window would still be
      // full).
      await sleepUntil(last.sentAt + last.retryAfter * 1_000 + 100)
      const recovered = await customers(apiA, first.key)
      expectAccepted(recovered, LIMIT)

      // 5. Once the whole burst has left the window, only that one request is counted: both processes accept.
      await sleepUntil(burstEnd + WINDOW_MS + 300)
      expect(expectAccepted(await customers(apiB, first.key), LIMIT)).toBe(LIMIT - 2)
      expect(expectAccepted(await customers(apiA, first.key), LIMIT)).toBe(LIMIT - 3)
      expect(await hitsOf(firstKeyId)).toBe(3)
      console.log(`rate-limit window rolled: test body took ${Date.now() - burstStart} ms after the burst`)
    },
    80_000
  )

  it("a slot's own transaction commits without waiting for the disk; nothing else does (migration 0011)", async () => {
    const account = await signup(apiA, "Loja Assíncrona")
    const connection = await db!.connect()
    const setting = async () =>
      (await connection.query<{ synchronous_commit: string }>("show synchronous_commit")).rows[0]!.synchronous_commit
    try {
      const keyId = (
        await connection.query<{ id: string }>("select id from api_keys where account_id = $1", [account.accountId])
      ).rows[0]!.id
      await connection.query("begin")
      expect(await setting()).toBe("on")
      const [slot] = (
        await connection.query("select * from rate_limit_take($1, $2, interval '60 seconds')", [keyId, LIMIT])
      ).rows
      expect(slot).toMatchObject({ allowed: true, remaining: LIMIT - 1 })
      expect(await setting()).toBe("off")
      await connection.query("rollback")
      // The next transaction on the same connection (a charge's, say) commits synchronously again.
      expect(await setting()).toBe("on")
    } finally {
      connection.release()
    }
  })

  it("both API processes shut down cleanly on SIGTERM", async () => {
    const [codeA, codeB] = await Promise.all([a!.stop("SIGTERM"), b!.stop("SIGTERM")])
    expect({ codeA, codeB }).toEqual({ codeA: 0, codeB: 0 })
  })
})
