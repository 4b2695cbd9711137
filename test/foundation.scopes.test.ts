import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { API_KEY, type CliResult, customerBody, expectError, ISO_UTC, runCli, UUID } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Restricted keys (CONTRACT §3) made by the operator CLI as a real process, and `accounts create`
 * printing the signup JSON. A key outside its scopes gets 403 `insufficient_permissions`.
 */

let server: TestServer
let api: Client
let owner: Awaited<ReturnType<typeof signup>>
let cli: {
  customersRead: CliResult
  ordersAll: CliResult
  unknownScope: CliResult
  accountsCreate: CliResult
  byAccountId: CliResult
}
const cliAccount = {
  name: "Loja da CLI",
  email: `cli-${process.pid}-${Date.now()}@example.com`,
  password: "a long enough password"
}

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  owner = await signup(api)
  // The CLI processes run side by side: each one starts tsx, connects and checks the migrations.
  const [customersRead, ordersAll, unknownScope, accountsCreate, byAccountId] = await Promise.all([
    runCli(server, ["keys", "create", "--account", owner.email, "--scopes", "customers:read"]),
    runCli(server, ["keys", "create", "--account", owner.email, "--scopes", "orders:*", "--label", "Orders bot"]),
    runCli(server, ["keys", "create", "--account", owner.email, "--scopes", "customers:read,nonsense:read"]),
    runCli(server, [
      "accounts",
      "create",
      "--name",
      cliAccount.name,
      "--email",
      cliAccount.email,
      "--password",
      cliAccount.password
    ]),
    runCli(server, ["keys", "create", "--account", owner.accountId, "--scopes", "customers:read"])
  ])
  cli = { customersRead, ordersAll, unknownScope, accountsCreate, byAccountId }
}, 90_000)
afterAll(async () => {
  await server?.close()
})

const parsed = (result: CliResult) => {
  expect(
    result.code,
    result.stderr
      .split("\n")
      .filter((l) => !l.startsWith("npm warn"))
      .join("\n")
  ).toBe(0)
  return JSON.parse(result.stdout)
}

describe("keys create --scopes customers:read", () => {
  let key: string
  let customerId: string
  beforeAll(async () => {
    key = parsed(cli.customersRead).fullKey
    const created = await api.post("/api/customers", customerBody(), { key: owner.key })
    expect(created.status).toBe(201)
    customerId = created.body.id
  })

  it("prints the key record with its scopes and the full secret", () => {
    const record = parsed(cli.customersRead)
    expect(record).toMatchObject({
      id: expect.stringMatching(UUID),
      label: expect.any(String),
      active: true,
      scopes: ["customers:read"],
      rateLimit: 100_000,
      createdAt: expect.stringMatching(ISO_UTC),
      fullKey: expect.stringMatching(API_KEY)
    })
    expect(record.keyPrefix).toBe(record.fullKey.slice(0, 16))
    expect(record.maskedKey).not.toContain(record.fullKey.slice(16, -4))
  })

  it("reads customers of the owner's account", async () => {
    const list = await api.get("/api/customers", { key })
    expect(list.status).toBe(200)
    expect(list.body.map((c: { id: string }) => c.id)).toContain(customerId)
    const one = await api.get(`/api/customers/${customerId}`, { key })
    expect(one.status).toBe(200)
    expect(one.body.id).toBe(customerId)
  })

  it("403 insufficient_permissions on every write and on other resources; nothing is written", async () => {
    const before = (await api.get("/api/customers", { key: owner.key })).body
    const refused: Array<[string, string, unknown?]> = [
      ["POST", "/api/customers", customerBody()],
      ["PATCH", `/api/customers/${customerId}`, { name: "Changed" }],
      ["DELETE", `/api/customers/${customerId}`],
      ["GET", "/api/orders"],
      ["GET", `/api/orders/${randomUUID()}`],
      ["POST", "/api/orders", { customerId, amount: 100 }],
      ["GET", "/api/transactions"],
      ["GET", `/api/transactions/${randomUUID()}`]
    ]
    for (const [method, path, body] of refused) {
      const reply = await api.request(method, path, body, { key })
      const envelope = expectError(reply, 403, "insufficient_permissions")
      expect(envelope.message, `${method} ${path}`).toMatch(/scope/)
    }
    expect((await api.get("/api/customers", { key: owner.key })).body).toEqual(before)
    expect((await api.get("/api/orders", { key: owner.key })).body).toEqual([])
  })

  it("scope is checked before the body: an invalid body still gets 403", async () => {
    expectError(await api.post("/api/customers", { name: "" }, { key }), 403, "insufficient_permissions")
  })

  it("the account's primary key keeps every scope", async () => {
    expect((await api.get("/api/orders", { key: owner.key })).status).toBe(200)
    expect((await api.get("/api/transactions", { key: owner.key })).status).toBe(200)
    const me = await api.get("/api/api-keys/me", { token: owner.token })
    expect(me.body.keyPrefix).toBe(owner.key.slice(0, 16))
  })
})

describe("keys create --scopes orders:*", () => {
  it("grants both order routes (read and write) and nothing else", async () => {
    const record = parsed(cli.ordersAll)
    expect(record.label).toBe("Orders bot")
    expect(record.scopes).toEqual(["orders:*"])
    const key: string = record.fullKey
    const customer = await api.post("/api/customers", customerBody(), { key: owner.key })
    const order = await api.post("/api/orders", { customerId: customer.body.id, amount: 2500 }, { key })
    expect(order.status, order.text).toBe(201)
    expect((await api.get(`/api/orders/${order.body.id}`, { key })).status).toBe(200)
    const list = await api.get("/api/orders", { key })
    expect(list.status).toBe(200)
    expect(list.body.map((o: { id: string }) => o.id)).toContain(order.body.id)
    expectError(await api.get("/api/customers", { key }), 403, "insufficient_permissions")
    expectError(await api.post("/api/customers", customerBody(), { key }), 403, "insufficient_permissions")
    expectError(await api.get("/api/transactions", { key }), 403, "insufficient_permissions")
  })
})

describe("CLI refusals", () => {
  it("an unknown scope exits non-zero, names it and creates no key", async () => {
    expect(cli.unknownScope.code).not.toBe(0)
    expect(cli.unknownScope.stderr).toContain("nonsense:read")
    expect(cli.unknownScope.stdout.trim()).toBe("")
    const keys = await server.db.query("select scopes from api_keys where account_id = $1", [owner.accountId])
    expect(keys.rows.some((row) => (row.scopes ?? []).includes("nonsense:read"))).toBe(false)
  })

  it("keys create --account accepts an account id as well as an email", () => {
    const record = parsed(cli.byAccountId)
    expect(record.scopes).toEqual(["customers:read"])
  })
})

describe("accounts create", () => {
  it("prints the same JSON shape as signup, and the account and key work over HTTP", async () => {
    const printed = parsed(cli.accountsCreate)
    const http = await api.post("/api/auth/signup", {
      name: "Shape",
      email: `shape-${Date.now()}@example.com`,
      password: "a long enough password"
    })
    expect(http.status).toBe(201)
    expect(Object.keys(printed).sort()).toEqual(Object.keys(http.body).sort())
    expect(Object.keys(printed.account).sort()).toEqual(Object.keys(http.body.account).sort())
    expect(Object.keys(printed.apiKey).sort()).toEqual(Object.keys(http.body.apiKey).sort())
    expect(printed.account).toEqual({
      id: expect.stringMatching(UUID),
      name: cliAccount.name,
      email: cliAccount.email,
      createdAt: expect.stringMatching(ISO_UTC)
    })
    expect(printed.apiKey).toMatchObject({ active: true, scopes: null, fullKey: expect.stringMatching(API_KEY) })
    expect(printed.apiKey.keyPrefix).toBe(printed.apiKey.fullKey.slice(0, 16))

    const key: string = printed.apiKey.fullKey
    expect((await api.get("/api/customers", { key })).status).toBe(200)
    const login = await api.post("/api/auth/login", { email: cliAccount.email, password: cliAccount.password })
    expect(login.status).toBe(200)
    const me = await api.get("/api/api-keys/me", { token: login.body.accessToken })
    expect(me.body.id).toBe(printed.apiKey.id)
  })
})
