import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 23 item 6: restricted API keys are listed and revoked, not only created — over HTTP by the
 * account owner with the login JWT, and by the operator CLI. A revoked key is refused (401) at once,
 * by another API process too (admission reads `active` on every request: docs/operations.md).
 */
let server: TestServer
let other: TestServer // a second API process on the same database
let api: Client
let owner: Awaited<ReturnType<typeof signup>>
let stranger: Awaited<ReturnType<typeof signup>>
const created: Record<string, { id: string; fullKey: string; keyPrefix: string }> = {}

const createKey = async (email: string, scopes: string, label: string) => {
  const result = await runCli(
    server,
    ["keys", "create", "--account", email, "--scopes", scopes, "--label", label],
    100_000
  )
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as { id: string; fullKey: string; keyPrefix: string }
}

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  other = await startTestServer({ rateLimitPerMinute: 100_000 }, { databaseUrl: server.databaseUrl, role: "api" })
  api = client(server.baseUrl)
  owner = await signup(api)
  stranger = await signup(api)
  const [first, second, foreign] = await Promise.all([
    createKey(owner.email, "orders:read", "Reports"),
    createKey(owner.email, "customers:read", "CRM sync"),
    createKey(stranger.email, "orders:read", "Theirs")
  ])
  Object.assign(created, { first, second, foreign })
}, 240_000)
afterAll(async () => {
  await other?.close()
  await server?.close()
})

const ordersWith = (base: TestServer, key: string) => client(base.baseUrl).get("/api/orders", { key })

describe("over HTTP, with the login token", () => {
  it("GET /api/api-keys lists the account's restricted keys only, newest first, without secrets", async () => {
    const reply = await api.get("/api/api-keys", { token: owner.token })
    expect(reply.status, reply.text).toBe(200)
    const ids = (reply.body as Array<{ id: string }>).map((k) => k.id)
    expect(new Set(ids)).toEqual(new Set([created.first!.id, created.second!.id]))
    const first = (reply.body as Array<Record<string, unknown>>).find((k) => k.id === created.first!.id)!
    expect(first).toMatchObject({
      label: "Reports",
      keyPrefix: created.first!.keyPrefix,
      scopes: ["orders:read"],
      active: true
    })
    expect(first).toHaveProperty("createdAt")
    expect(first).toHaveProperty("lastUsedAt")
    expect(reply.text).not.toContain(created.first!.fullKey)
    expect(reply.text).not.toContain(created.foreign!.id)
    const stamps = (reply.body as Array<{ createdAt: string }>).map((k) => k.createdAt)
    expect([...stamps].sort().reverse()).toEqual(stamps)
  })

  it("an API key instead of the login token is refused (401) on list and revoke, as on /me", async () => {
    for (const headers of [{ "x-api-key": owner.key }, { authorization: `Bearer ${owner.key}` }]) {
      expect((await api.get("/api/api-keys", { headers })).status).toBe(401)
      expect((await api.del(`/api/api-keys/${created.second!.id}`, { headers })).status).toBe(401)
      expect((await api.get("/api/api-keys/me", { headers })).status).toBe(401)
    }
    expect((await api.get("/api/api-keys")).status).toBe(401)
  })

  it("another account's key id, the primary key, an unknown id → 404; a malformed id → 400", async () => {
    const foreign = await api.del(`/api/api-keys/${created.foreign!.id}`, { token: owner.token })
    expect(foreign.status, foreign.text).toBe(404)
    expect((await ordersWith(server, created.foreign!.fullKey)).status).toBe(200) // untouched
    const primary = (await api.get("/api/api-keys/me", { token: owner.token })).body.id as string
    expect((await api.del(`/api/api-keys/${primary}`, { token: owner.token })).status).toBe(404)
    expect((await api.del(`/api/api-keys/${randomUUID()}`, { token: owner.token })).status).toBe(404)
    expect((await api.del("/api/api-keys/not-a-uuid", { token: owner.token })).status).toBe(400)
  })

  it("DELETE revokes: 401 at once on this process and another one; a second DELETE answers the same", async () => {
    const key = created.first!.fullKey
    expect((await ordersWith(server, key)).status).toBe(200)
    expect((await ordersWith(other, key)).status).toBe(200)
    const revoked = await api.del(`/api/api-keys/${created.first!.id}`, { token: owner.token })
    expect(revoked.status, revoked.text).toBe(200)
    expect(revoked.body).toMatchObject({ id: created.first!.id, active: false })
    expect((await ordersWith(server, key)).status).toBe(401)
    expect((await ordersWith(other, key)).status).toBe(401)
    const again = await api.del(`/api/api-keys/${created.first!.id}`, { token: owner.token })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: created.first!.id, active: false })
    const listed = (await api.get("/api/api-keys", { token: owner.token })).body as Array<Record<string, unknown>>
    expect(listed.find((k) => k.id === created.first!.id)).toMatchObject({ active: false })
  })
})

describe("with the operator CLI", () => {
  it("api-keys list and api-keys revoke; another account's key is refused", async () => {
    const [listed, revoked, foreign] = await Promise.all([
      runCli(server, ["api-keys", "list", "--account", owner.email], 100_000),
      runCli(server, ["api-keys", "revoke", "--account", owner.email, "--id", created.second!.id], 100_000),
      runCli(server, ["api-keys", "revoke", "--account", owner.email, "--id", created.foreign!.id], 100_000)
    ])
    expect(listed.code, listed.stderr).toBe(0)
    const keys = JSON.parse(listed.stdout) as Array<{ id: string; scopes: Array<string> }>
    expect(keys.map((k) => k.id).sort()).toEqual([created.first!.id, created.second!.id].sort())
    expect(listed.stdout).not.toContain(created.second!.fullKey)
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: created.second!.id, active: false })
    expect((await client(server.baseUrl).get("/api/customers", { key: created.second!.fullKey })).status).toBe(401)
    expect((await client(other.baseUrl).get("/api/customers", { key: created.second!.fullKey })).status).toBe(401)
    expect(foreign.code).toBe(1)
    expect(foreign.stderr).toContain(`has no restricted key with id ${created.foreign!.id}`)
    expect((await ordersWith(server, created.foreign!.fullKey)).status).toBe(200)
  }, 240_000)
})
