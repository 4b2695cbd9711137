import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * /public/v1 reads the key with URLSearchParams, which decodes the parameter's NAME (`api%5Ftoken` →
 * `api_token`), so `?api%5Ftoken=<key>` authenticates. redactUrl matched only the literal `api_token=`, so
 * the whole key was stored in the request log, where any `logs:read` key could read the primary key.
 * redactUrl now matches names as decoded (src/http/shared/redact.ts).
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
})
afterAll(async () => {
  await server?.close()
})

describe("api_token with a percent-encoded name", () => {
  it("authenticates, and must not be stored in the request log", async () => {
    const api = client(server.baseUrl)
    const m = await signup(api, "Loja Encoded")
    // A restricted key that may only read the request log.
    const reader = await api.post(
      "/api/dashboard/api-keys",
      { label: "logs only", scopes: ["logs:read"] },
      { token: m.token }
    )
    expect(reader.status, reader.text).toBe(201)

    const used = await api.get(`/public/v1/installments?amount=1000&api%5Ftoken=${m.key}`)
    expect(used.status, used.text).toBe(200) // the primary key was accepted from the encoded name

    const deadline = Date.now() + 10_000
    let found: any
    while (found === undefined && Date.now() < deadline) {
      const page = await api.get("/api/request-log", { key: reader.body.fullKey })
      expect(page.status, page.text).toBe(200)
      found = page.body.requests.find((r: any) => r.path.startsWith("/public/v1/installments"))
      if (found === undefined) await new Promise((r) => setTimeout(r, 100))
    }
    expect(found).toBeDefined()
    // The logs-only key reads the primary key in clear.
    expect(found.path).not.toContain(m.key)
    const rows = await server.db.query("select path from request_log")
    expect(JSON.stringify(rows.rows)).not.toContain(m.key)
  })
})
