import { randomBytes, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  API_KEY,
  eventually,
  expectError,
  expectFieldErrors,
  forgeToken,
  ISO_UTC,
  jwtPayload,
  unknownApiKey,
  UUID
} from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Accounts, login tokens and API keys (interface-v2 "Authentication", CONTRACT §3): signup, login,
 * GET /api/api-keys/me, regeneration, and every 401 of both credential kinds.
 */

let server: TestServer
let api: Client
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

let emailCounter = 0
const uniqueEmail = (prefix = "auth") => `${prefix}-${process.pid}-${Date.now()}-${++emailCounter}@example.com`
const PASSWORD = "correct horse battery"

describe("POST /api/auth/signup", () => {
  it("201 with the account and its primary key, the secret shown once", async () => {
    const email = uniqueEmail()
    const reply = await api.post("/api/auth/signup", { name: "Loja do Zé", email, password: PASSWORD })
    expect(reply.status, reply.text).toBe(201)
    const { account, apiKey } = reply.body
    expect(account).toEqual({
      id: expect.stringMatching(UUID),
      name: "Loja do Zé",
      email,
      createdAt: expect.stringMatching(ISO_UTC)
    })
    expect(apiKey).toMatchObject({
      id: expect.stringMatching(UUID),
      label: expect.any(String),
      fullKey: expect.stringMatching(API_KEY),
      active: true,
      rateLimit: 100_000,
      createdAt: expect.stringMatching(ISO_UTC)
    })
    const fullKey: string = apiKey.fullKey
    expect(apiKey.keyPrefix).toBe(fullKey.slice(0, 16))
    expect(apiKey.maskedKey).toMatch(new RegExp(`^${apiKey.keyPrefix}`))
    // The secret middle of the key never appears in the masked form.
    const middle = fullKey.slice(16, -4)
    expect(middle.length).toBeGreaterThanOrEqual(20)
    expect(apiKey.maskedKey).not.toContain(middle)
    expect(apiKey.maskedKey).not.toContain(fullKey.slice(16, 24))
    expect(apiKey.maskedKey).not.toBe(fullKey)
    // And the key works at once.
    expect((await api.get("/api/customers", { key: fullKey })).status).toBe(200)
  })

  it("409 when the email is already registered, whatever its case", async () => {
    const email = uniqueEmail("Case")
    expect((await api.post("/api/auth/signup", { name: "A", email, password: PASSWORD })).status).toBe(201)
    expectError(await api.post("/api/auth/signup", { name: "B", email, password: PASSWORD }), 409)
    const body = expectError(
      await api.post("/api/auth/signup", { name: "C", email: email.toUpperCase(), password: PASSWORD }),
      409
    )
    expect(body.code).toMatch(/^[a-z]+(_[a-z]+)*$/)
    expect(body.message).toMatch(/email/i)
    // Still exactly one account with that address.
    const rows = await server.db.query("select count(*)::int as n from accounts where lower(email) = lower($1)", [
      email
    ])
    expect(rows.rows[0].n).toBe(1)
  })

  it("400 naming password when it is shorter than 10 characters; 10 is enough", async () => {
    const short = await api.post("/api/auth/signup", { name: "A", email: uniqueEmail(), password: "123456789" })
    const body = expectFieldErrors(short, ["password"])
    expect(body.code).toBe("validation_failed")
    const exact = await api.post("/api/auth/signup", { name: "A", email: uniqueEmail(), password: "1234567890" })
    expect(exact.status, exact.text).toBe(201)
  })

  it("the short-password message names the field once", async () => {
    const body = expectError(
      await api.post("/api/auth/signup", { name: "A", email: uniqueEmail(), password: "short" }),
      400
    )
    expect(body.message).toBe("password must have at least 10 characters")
  })

  it("400 naming each bad field: empty name, bad email, missing password, wrong types", async () => {
    expectFieldErrors(await api.post("/api/auth/signup", { name: "", email: "not-an-email" }), [
      "name",
      "email",
      "password"
    ])
    expectFieldErrors(await api.post("/api/auth/signup", { name: 1, email: uniqueEmail(), password: PASSWORD }), [
      "name"
    ])
  })
})

describe("POST /api/auth/login", () => {
  it("200 with an HS256 JWT: sub = account id, exp - iat = 900 s", async () => {
    const account = await signup(api)
    const before = Math.floor(Date.now() / 1000)
    const reply = await api.post("/api/auth/login", { email: account.email, password: account.password })
    expect(reply.status, reply.text).toBe(200)
    expect(Object.keys(reply.body)).toEqual(["accessToken"])
    const token: string = reply.body.accessToken
    expect(token.split(".")).toHaveLength(3)
    const header = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString("utf8"))
    expect(header.alg).toBe("HS256")
    const payload = jwtPayload(token)
    expect(payload.sub).toBe(account.accountId)
    expect((payload.exp as number) - (payload.iat as number)).toBe(900)
    expect(payload.iat as number).toBeGreaterThanOrEqual(before - 1)
    expect(payload.iat as number).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1)
    // The token opens the key-management routes.
    expect((await api.get("/api/api-keys/me", { token })).status).toBe(200)
  })

  it("accepts the email in another case", async () => {
    const account = await signup(api)
    const reply = await api.post("/api/auth/login", { email: account.email.toUpperCase(), password: account.password })
    expect(reply.status, reply.text).toBe(200)
    expect(jwtPayload(reply.body.accessToken).sub).toBe(account.accountId)
  })

  it("401 for a wrong password and for an unknown email, with the same body", async () => {
    const account = await signup(api)
    const wrong = expectError(
      await api.post("/api/auth/login", { email: account.email, password: "not the password" }),
      401
    )
    const unknown = expectError(
      await api.post("/api/auth/login", { email: uniqueEmail("nobody"), password: PASSWORD }),
      401
    )
    expect(wrong).not.toHaveProperty("accessToken")
    expect(unknown).toEqual(wrong)
  })

  it("400 naming the missing fields", async () => {
    expectFieldErrors(await api.post("/api/auth/login", {}), ["email", "password"])
    expectFieldErrors(await api.post("/api/auth/login", { email: "a@b.co", password: 12 }), ["password"])
  })
})

describe("GET /api/api-keys/me (JWT bearer)", () => {
  it("200 with the API key record and never the secret", async () => {
    const email = uniqueEmail()
    const created = await api.post("/api/auth/signup", { name: "Loja", email, password: PASSWORD })
    const token = (await api.post("/api/auth/login", { email, password: PASSWORD })).body.accessToken
    const reply = await api.get("/api/api-keys/me", { token })
    expect(reply.status, reply.text).toBe(200)
    const { fullKey, ...signupKey } = created.body.apiKey
    expect(reply.body).toMatchObject({
      id: signupKey.id,
      label: signupKey.label,
      keyPrefix: fullKey.slice(0, 16),
      maskedKey: signupKey.maskedKey,
      active: true,
      rateLimit: 100_000,
      lastUsedAt: null,
      createdAt: signupKey.createdAt
    })
    expect(reply.body.createdAt).toMatch(ISO_UTC)
    expect(reply.body).not.toHaveProperty("fullKey")
    expect(reply.text).not.toContain(fullKey.slice(16))
  })

  describe("401 invalid_token for anything but a valid login token", () => {
    let account: Awaited<ReturnType<typeof signup>>
    beforeAll(async () => {
      account = await signup(api)
    })
    const cases: Array<[string, () => Record<string, string>]> = [
      ["no Authorization header", () => ({})],
      ['"Bearer" with nothing', () => ({ authorization: "Bearer" })],
      ['"Bearer " and spaces', () => ({ authorization: "Bearer    " })],
      ["Basic credentials", () => ({ authorization: "Basic x" })],
      ["a random string", () => ({ authorization: randomBytes(24).toString("hex") })],
      ["a token without the Bearer scheme", () => ({ authorization: account.token })],
      ["an API key as bearer", () => ({ authorization: `Bearer ${account.key}` })],
      ["an API key in X-Api-Key", () => ({ "x-api-key": account.key })],
      [
        "a JWT with a tampered payload",
        () => {
          const [h, , s] = account.token.split(".")
          const payload = Buffer.from(JSON.stringify({ ...jwtPayload(account.token), sub: randomUUID() })).toString(
            "base64url"
          )
          return { authorization: `Bearer ${h}.${payload}.${s}` }
        }
      ]
    ]
    it.each(cases)("%s", async (_name, headers) => {
      const reply = await api.get("/api/api-keys/me", { headers: headers() })
      expectError(reply, 401, "invalid_token")
    })

    it("a JWT signed with another secret", async () => {
      const now = Math.floor(Date.now() / 1000)
      const token = await forgeToken(
        server,
        { sub: account.accountId, iat: now, exp: now + 900 },
        randomBytes(32).toString("base64url")
      )
      expectError(await api.get("/api/api-keys/me", { token }), 401, "invalid_token")
      expectError(await api.post("/api/api-keys/me/regenerate", undefined, { token }), 401, "invalid_token")
    })
  })

  it("401 expired_token for a correctly signed token past its exp", async () => {
    const account = await signup(api)
    const now = Math.floor(Date.now() / 1000)
    // Sanity: the same forging with a future exp is accepted, so only the expiry differs.
    const fresh = await forgeToken(server, { sub: account.accountId, iat: now, exp: now + 60 })
    expect((await api.get("/api/api-keys/me", { token: fresh })).status).toBe(200)
    const expired = await forgeToken(server, { sub: account.accountId, iat: now - 1000, exp: now - 100 })
    const body = expectError(await api.get("/api/api-keys/me", { token: expired }), 401, "expired_token")
    expect(body.message).toMatch(/expired/i)
    expectError(await api.post("/api/api-keys/me/regenerate", undefined, { token: expired }), 401, "expired_token")
  })

  it("a validly signed token whose sub is not a UUID is 401 invalid_token", async () => {
    const now = Math.floor(Date.now() / 1000)
    const token = await forgeToken(server, { sub: "not-a-uuid", iat: now, exp: now + 60 })
    expectError(await api.get("/api/api-keys/me", { token }), 401, "invalid_token")
  })

  it("a correctly signed token for an account that no longer exists is 401 invalid_token, not 404", async () => {
    const account = await signup(api)
    const now = Math.floor(Date.now() / 1000)
    // Never existed: a signed token naming a random account.
    const stranger = await forgeToken(server, { sub: randomUUID(), iat: now, exp: now + 60 })
    expectError(await api.get("/api/api-keys/me", { token: stranger }), 401, "invalid_token")
    expectError(await api.post("/api/api-keys/me/regenerate", undefined, { token: stranger }), 401, "invalid_token")
    // Deleted after login: the token from login stays signed and unexpired, the row is gone.
    expect((await api.get("/api/api-keys/me", { token: account.token })).status).toBe(200)
    const client = await server.db.connect()
    try {
      await client.query("begin")
      // Every row a fresh signup owns, then the account itself (no cascade in the schema).
      const owners = await client.query<{ table_name: string }>(
        `select distinct c.table_name from information_schema.columns c
           join information_schema.tables t using (table_schema, table_name)
          where c.table_schema = 'public' and c.column_name = 'account_id' and t.table_type = 'BASE TABLE'`
      )
      for (const { table_name } of owners.rows) {
        await client.query(`delete from ${table_name} where account_id = $1`, [account.accountId])
      }
      await client.query("delete from accounts where id = $1", [account.accountId])
      await client.query("commit")
    } finally {
      client.release()
    }
    expectError(await api.get("/api/api-keys/me", { token: account.token }), 401, "invalid_token")
    expectError(
      await api.post("/api/api-keys/me/regenerate", undefined, { token: account.token }),
      401,
      "invalid_token"
    )
  })

  it("lastUsedAt becomes set within ~2 s of a request made with the key", async () => {
    const account = await signup(api)
    expect((await api.get("/api/api-keys/me", { token: account.token })).body.lastUsedAt).toBeNull()
    const usedAt = Date.now()
    expect((await api.get("/api/orders", { key: account.key })).status).toBe(200)
    const lastUsedAt = await eventually(async () => {
      const me = await api.get("/api/api-keys/me", { token: account.token })
      return me.body.lastUsedAt ?? undefined
    }, 2500)
    expect(lastUsedAt).toMatch(ISO_UTC)
    expect(Date.parse(lastUsedAt)).toBeGreaterThanOrEqual(usedAt - 1000)
    expect(Date.parse(lastUsedAt)).toBeLessThanOrEqual(Date.now() + 1000)
  })
})

describe("POST /api/api-keys/me/regenerate", () => {
  it("200 with a new secret; the old key is refused at once and the new one works", async () => {
    const account = await signup(api)
    const before = await api.get("/api/api-keys/me", { token: account.token })
    const reply = await api.post("/api/api-keys/me/regenerate", undefined, { token: account.token })
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toEqual({
      id: before.body.id,
      label: before.body.label,
      fullKey: expect.stringMatching(API_KEY),
      active: true,
      createdAt: expect.stringMatching(ISO_UTC)
    })
    const newKey: string = reply.body.fullKey
    expect(newKey).not.toBe(account.key)
    expectError(await api.get("/api/customers", { key: account.key }), 401, "invalid_api_key")
    expect((await api.get("/api/customers", { key: newKey })).status).toBe(200)
    const after = await api.get("/api/api-keys/me", { token: account.token })
    expect(after.body.keyPrefix).toBe(newKey.slice(0, 16))
    expect(after.body.maskedKey).not.toBe(before.body.maskedKey)
    // A second regeneration retires the second key as well.
    const again = await api.post("/api/api-keys/me/regenerate", undefined, { token: account.token })
    expect(again.status).toBe(200)
    expectError(await api.get("/api/customers", { key: newKey }), 401, "invalid_api_key")
    expect((await api.get("/api/customers", { key: again.body.fullKey })).status).toBe(200)
  })

  it("401 invalid_token without a login token (and nothing is rotated)", async () => {
    const account = await signup(api)
    expectError(await api.post("/api/api-keys/me/regenerate"), 401, "invalid_token")
    expectError(await api.post("/api/api-keys/me/regenerate", undefined, { key: account.key }), 401, "invalid_token")
    expect((await api.get("/api/customers", { key: account.key })).status).toBe(200)
  })
})

describe("X-Api-Key routes refuse everything but a live key: 401 invalid_api_key", () => {
  let account: Awaited<ReturnType<typeof signup>>
  beforeAll(async () => {
    account = await signup(api)
  })
  const routes: Array<[string, string, unknown?]> = [
    ["GET", "/api/customers"],
    ["POST", "/api/customers", {}],
    ["GET", `/api/customers/${randomUUID()}`],
    ["PATCH", `/api/customers/${randomUUID()}`, {}],
    ["DELETE", `/api/customers/${randomUUID()}`],
    ["GET", "/api/orders"],
    ["POST", "/api/orders", {}],
    ["GET", `/api/orders/${randomUUID()}`],
    ["GET", "/api/transactions"],
    ["GET", `/api/transactions/${randomUUID()}`]
  ]
  const credentials: Array<[string, () => Record<string, string>]> = [
    ["no X-Api-Key", () => ({})],
    ["an empty X-Api-Key", () => ({ "x-api-key": "" })],
    ["a malformed key", () => ({ "x-api-key": "sk_live_tooshort" })],
    ["a key of the wrong shape", () => ({ "x-api-key": `pk_live_${"a".repeat(43)}` })],
    ["an unknown well-formed key", () => ({ "x-api-key": unknownApiKey() })],
    ["the login JWT as Authorization: Bearer", () => ({ authorization: `Bearer ${account.token}` })],
    ["the login JWT inside X-Api-Key", () => ({ "x-api-key": account.token })],
    ["the real key as Authorization: Bearer", () => ({ authorization: `Bearer ${account.key}` })]
  ]
  it.each(credentials)("%s", async (_name, headers) => {
    for (const [method, path, body] of routes) {
      const reply = await api.request(method, path, body, { headers: headers() })
      expectError(reply, 401, "invalid_api_key")
    }
  })
})

describe("regeneration across API processes on one database", () => {
  let second: TestServer
  let api2: Client
  beforeAll(async () => {
    // A second API process (also with SIGNUP_ENABLED=false) on the same database.
    second = await startTestServer(
      { rateLimitPerMinute: 100_000, signupEnabled: false },
      { databaseUrl: server.databaseUrl, role: "api" }
    )
    api2 = client(second.baseUrl)
  })
  afterAll(async () => {
    await second?.close()
  })

  it("a key regenerated through one process is refused by the other within 1 s", async () => {
    const account = await signup(api)
    expect((await api2.get("/api/customers", { key: account.key })).status).toBe(200)
    const rotated = await api.post("/api/api-keys/me/regenerate", undefined, { token: account.token })
    expect(rotated.status).toBe(200)
    const started = Date.now()
    const refused = await eventually(
      async () => {
        const reply = await api2.get("/api/customers", { key: account.key })
        return reply.status === 401 ? reply : undefined
      },
      1000,
      20
    )
    expect(Date.now() - started).toBeLessThan(1000)
    expectError(refused, 401, "invalid_api_key")
    expect((await api2.get("/api/customers", { key: rotated.body.fullKey })).status).toBe(200)
  })

  it("and the other way round, with a login token of the second process", async () => {
    const account = await signup(api)
    const login = await api2.post("/api/auth/login", { email: account.email, password: account.password })
    expect(login.status, login.text).toBe(200)
    // Each process here has its own JWT secret: a token of one is a token "signed with another secret" for the other.
    expectError(await api.get("/api/api-keys/me", { token: login.body.accessToken }), 401, "invalid_token")
    const rotated = await api2.post("/api/api-keys/me/regenerate", undefined, { token: login.body.accessToken })
    expect(rotated.status).toBe(200)
    const started = Date.now()
    await eventually(
      async () => ((await api.get("/api/orders", { key: account.key })).status === 401 ? true : undefined),
      1000,
      20
    )
    expect(Date.now() - started).toBeLessThan(1000)
    expect((await api.get("/api/orders", { key: rotated.body.fullKey })).status).toBe(200)
  })

  it("SIGNUP_ENABLED=false: signup is 404 (as an unknown route) and creates nothing; login still works", async () => {
    const email = uniqueEmail("disabled")
    const body = expectError(await api2.post("/api/auth/signup", { name: "X", email, password: PASSWORD }), 404)
    expect(body.code).toBe("route_not_found")
    const rows = await server.db.query("select count(*)::int as n from accounts where email = $1", [email])
    expect(rows.rows[0].n).toBe(0)
    const account = await signup(api)
    expect((await api2.post("/api/auth/login", { email: account.email, password: account.password })).status).toBe(200)
  })

  it("SIGNUP_ENABLED=false answers 404 before looking at the body", async () => {
    expectError(await api2.post("/api/auth/signup", { email: uniqueEmail("disabled") }), 404, "route_not_found")
  })
})
