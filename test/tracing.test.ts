import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
import { newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"
import { type Receiver, startReceiver } from "./support/receiver.ts"

/**
 * Issue 11, tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, one charge's trace reaches a local OTLP/HTTP
 * receiver from the HTTP request through the SQL to the webhook delivery job, and no span carries an
 * api_token.
 */
interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly name: string
  readonly attributes: ReadonlyArray<{ key: string; value: { stringValue?: string } }>
}
const spans: Array<Span> = []
let collector: Server
let service: RoleProcess
let hooks: Receiver

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        const data = JSON.parse(body)
        for (const rs of data.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push(s)
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
  const port = (collector.address() as { port: number }).port
  hooks = await startReceiver()
  service = await spawnRole("all", {
    DATABASE_URL: await createMigratedTestDatabase(),
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true"
  })
}, 60_000)
afterAll(async () => {
  await stopAll([service])
  await hooks?.close()
  collector?.close()
})

const waitFor = async <T>(find: () => T | undefined, what: string, ms = 20_000): Promise<T> => {
  const until = Date.now() + ms
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() > until) throw new Error(`${what} not seen; span names: ${[...new Set(spans.map((s) => s.name))]}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
const attribute = (s: Span, key: string) => s.attributes.find((a) => a.key === key)?.value.stringValue

describe("OpenTelemetry over OTLP/HTTP", () => {
  it("one charge's trace: HTTP request → application → SQL → the webhook delivery job", async () => {
    const api = client(service.baseUrl)
    const { key } = await signup(api)
    await api.post("/api/webhooks/upsert", { url: hooks.url }, { key })
    const { orderId } = await newOrder(api, key, 2_000)
    const charged = await api.post(PROCESS, pixBody(orderId, 2_000), { key })
    expect(charged.status).toBe(201)
    const request = await waitFor(
      () => spans.find((s) => attribute(s, "url.path") === PROCESS && attribute(s, "http.request.method") === "POST"),
      "the HTTP span of the charge"
    )
    const trace = (name: RegExp) =>
      waitFor(() => spans.find((s) => s.traceId === request.traceId && name.test(s.name)), `${name} in the trace`)
    await trace(/Payments\.charge/)
    await trace(/Lifecycle\.create/)
    await trace(/^sql\.|execute|SELECT|INSERT/i)
    await trace(/job\.deliver_webhook/)
  }, 40_000)

  it("no span carries an api_token", async () => {
    const api = client(service.baseUrl)
    const { key } = await signup(api)
    await api.get(`/public/v1/installments?amount=1000&api_token=${key}`)
    await waitFor(() => spans.find((s) => attribute(s, "url.path") === "/public/v1/installments"), "the v1 span")
    expect(JSON.stringify(spans)).not.toContain(key.slice(8))
    const v1 = spans.find((s) => attribute(s, "url.path") === "/public/v1/installments")!
    expect(attribute(v1, "url.full")).toContain("api_token=[REDACTED]")
  })
})
