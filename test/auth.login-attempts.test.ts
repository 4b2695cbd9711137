import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, expectError } from "./support/foundation.ts"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, type Client, type Reply, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Failed logins per email (docs/decisions.md "Login attempts"): after LOGIN_FAILURES_MAX failures of one
 * email in LOGIN_FAILURES_WINDOW_SECONDS, its logins answer 429 with Retry-After until the window ends,
 * counted in PostgreSQL for every API process together (two services on one database here), decided
 * before the password is hashed, the same for an email without an account; a success clears the count.
 */

const MAX = 3
let one: TestServer
let two: TestServer
let short: TestServer
let a: Client
let b: Client
let c: Client

beforeAll(async () => {
  const databaseUrl = await createMigratedTestDatabase()
  const loginThrottle = { maxFailures: MAX, windowSeconds: 600 }
  one = await startTestServer({ loginThrottle }, { databaseUrl })
  two = await startTestServer({ loginThrottle }, { databaseUrl, role: "api" })
  // One failure per 3-second window: the window's end is waited for, not simulated.
  short = await startTestServer({ loginThrottle: { maxFailures: 1, windowSeconds: 3 } })
  a = client(one.baseUrl)
  b = client(two.baseUrl)
  c = client(short.baseUrl)
}, 120_000)
afterAll(async () => {
  await two?.close()
  await one?.close()
  await short?.close()
})

const login = (api: Client, email: string, password: string) => api.post("/api/auth/login", { email, password })
const WRONG = "not the password at all"

/** A 429 of the login throttle, in the /api envelope, with Retry-After equal to the body's retryAfter. */
const refused = (reply: Reply, windowSeconds: number) => {
  const body = expectError(reply, 429, "login_rate_limited") as ReturnType<typeof expectError> & { retryAfter: number }
  expect(Number.isInteger(body.retryAfter), reply.text).toBe(true)
  expect(body.retryAfter).toBeGreaterThanOrEqual(1)
  expect(body.retryAfter).toBeLessThanOrEqual(windowSeconds)
  expect(reply.headers.get("retry-after")).toBe(String(body.retryAfter))
  return body
}

describe("POST /api/auth/login, attempts per email", () => {
  it("after LOGIN_FAILURES_MAX failures every process answers 429 with Retry-After, right password too", async () => {
    const m = await signup(a)
    // The failures are spread over both processes: the count is the database's.
    for (const api of [a, b, a]) expectError(await login(api, m.email, WRONG), 401, "invalid_credentials")
    refused(await login(a, m.email, m.password), 600)
    refused(await login(b, m.email, m.password), 600)
    // The email as login compares it: another case is the same address.
    refused(await login(b, m.email.toUpperCase(), m.password), 600)
    // Another email is not held back.
    const other = await signup(b)
    expect((await login(a, other.email, other.password)).status).toBe(200)
  })

  it("an email without an account gets the same answers, in the same order", async () => {
    const m = await signup(a)
    const nobody = `nobody-${Date.now()}@example.com`
    const answers = async (email: string, password: string) => {
      const replies: Array<Reply> = []
      for (let i = 0; i <= MAX; i++) replies.push(await login(i % 2 === 0 ? a : b, email, i < MAX ? WRONG : password))
      return replies.map((r) => ({
        status: r.status,
        code: r.body.code,
        message: String(r.body.message).replace(/\d+ s$/, "N s"),
        retryAfter: r.headers.get("retry-after") !== null
      }))
    }
    const known = await answers(m.email, m.password)
    expect(known.map((r) => r.status)).toEqual([401, 401, 401, 429])
    expect(await answers(nobody, "whatever password")).toEqual(known)
  })

  it("a successful login clears the count", async () => {
    const m = await signup(a)
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < MAX - 1; i++) expect((await login(round % 2 === 0 ? a : b, m.email, WRONG)).status).toBe(401)
      expect((await login(b, m.email, m.password)).status).toBe(200)
    }
  })

  it("concurrent attempts cannot outrun the count: only LOGIN_FAILURES_MAX of them are checked", async () => {
    const m = await signup(a)
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => login(i % 2 === 0 ? a : b, m.email, WRONG)))
    const statuses = replies.map((r) => r.status).sort()
    expect(statuses).toEqual([...Array(MAX).fill(401), ...Array(12 - MAX).fill(429)])
  })

  it("when the window ends, the email's logins are counted again", async () => {
    const m = await signup(c)
    expectError(await login(c, m.email, WRONG), 401)
    const body = refused(await login(c, m.email, m.password), 3)
    const refusedAt = Date.now()
    const reply = await eventually(
      async () => {
        const r = await login(c, m.email, m.password)
        if (r.status === 429) return undefined
        return r
      },
      15_000,
      250
    )
    expect(reply.status, reply.text).toBe(200)
    // Not before the window's end that Retry-After announced (to the second it is rounded up to).
    expect(Date.now() - refusedAt).toBeGreaterThanOrEqual((body.retryAfter - 1) * 1000)
  })

  it("an address tried and never again is forgotten after its window, by a later attempt of any address", async () => {
    const rows = async (email: string) =>
      (
        await short.db.query<{ n: number }>(
          "select count(*)::int as n from login_attempts where email_digest = login_attempts_key($1)",
          [email]
        )
      ).rows[0]!.n
    const once = `once-${Date.now()}@example.com`
    expectError(await login(c, once, WRONG), 401)
    expect(await rows(once)).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 3_100))
    expectError(await login(c, `later-${Date.now()}@example.com`, WRONG), 401)
    expect(await rows(once)).toBe(0)
  })
})
