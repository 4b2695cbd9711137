import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * API answers are one account's data at one moment: `Cache-Control: no-store` on every one of both
 * interfaces, success or error, API key or dashboard session, unless the route sets its own (docs/api.md
 * "Caching").
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

const cacheControl = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${server.baseUrl}${path}`, init)
  await response.arrayBuffer()
  return response.headers.get("cache-control")
}

describe("Cache-Control on API answers", () => {
  it("no-store on /api and /public/v1, answers and errors, keys and sessions alike", async () => {
    const m = await signup(api, "Loja Cache")
    const key = { "x-api-key": m.key }
    expect(await cacheControl("/api/customers", { headers: key })).toBe("no-store")
    expect(await cacheControl("/api/customers/not-a-uuid", { headers: key })).toBe("no-store")
    expect(await cacheControl("/api/customers")).toBe("no-store") // 401
    expect(await cacheControl("/public/v1/balance", { headers: { authorization: `Bearer ${m.key}` } })).toBe("no-store")
    expect(await cacheControl("/api/dashboard/summary", { headers: { authorization: `Bearer ${m.token}` } })).toBe(
      "no-store"
    )
    expect(await cacheControl("/api/nothing-here")).toBe("no-store") // 404
  })

  it("the pages keep their own", async () => {
    expect(await cacheControl("/health")).not.toBe("no-store")
    expect(await cacheControl("/docs")).not.toBe("no-store")
  })
})
