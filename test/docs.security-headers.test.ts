import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * /docs is an HTML page served to people from the same origin as the dashboard
 * (whose login token lives in this origin's sessionStorage) and carries a large inline script and a
 * "Test Request" client where a merchant types an API key. Every other HTML page of the service
 * (dashboard, checkout, payment link) is sent with a CSP, frame-ancestors 'none', X-Frame-Options DENY,
 * nosniff and no-referrer; /docs was sent with none of them, so any site could frame it (clickjacking) and
 * nothing limited where its scripts may send (src/http/ops/reference.ts).
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
})
afterAll(async () => {
  await server?.close()
})

describe("/docs security headers", () => {
  it("GET /docs may not be framed by another site and is not sniffed", async () => {
    const response = await fetch(`${server.baseUrl}/docs`, { headers: { accept: "text/html" } })
    await response.arrayBuffer()
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/text\/html/)
    const csp = response.headers.get("content-security-policy") ?? ""
    const xfo = response.headers.get("x-frame-options") ?? ""
    // Either control refuses framing by another origin.
    expect(
      /frame-ancestors\s+('none'|'self')/.test(csp) || /^(deny|sameorigin)$/i.test(xfo),
      `content-security-policy: ${csp || "(none)"}; x-frame-options: ${xfo || "(none)"}`
    ).toBe(true)
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
    expect(response.headers.get("referrer-policy")).toBe("no-referrer")
  })
})
