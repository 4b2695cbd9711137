import { randomUUID } from "node:crypto"
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
import { cardBody, newOrder, PROCESS } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"
import { luhnCheckDigit } from "../src/domain/card.ts"

/**
 * The service as deployed (`main all`, LOG_LEVEL=debug, OTLP exporter on) writes no card number that came in
 * the URL or a header into its debug access log or its exported spans (docs/decisions.md "Card data in the
 * gateway's copies"): URLs are redacted as the request log keeps them, header values are kept only for a
 * list of headers that describe the exchange (src/adapters/tracing/TracingSdk.ts).
 */

const panOf = (n: number) => {
  const body = `455636${String(n).padStart(9, "0")}`
  return body + luhnCheckDigit(body)
}
const PAN = {
  query: panOf(901),
  path: panOf(902),
  idempotencyKey: panOf(903),
  requestId: panOf(904),
  header: panOf(905)
}
/** A CVV in a header of the merchant's own: no pattern knows it, the header list keeps it out. */
const CVV_HEADER = "x-card-cvv"
const CVV = "9731"
/** The request whose span is waited for: the last one sent. */
const LAST = `last-${randomUUID()}`

const spans: Array<string> = []
let collector: Server
let service: RoleProcess

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      if (req.url === "/v1/traces") spans.push(body)
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
  service = await spawnRole("all", {
    DATABASE_URL: await createMigratedTestDatabase(),
    LOG_LEVEL: "debug",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as { port: number }).port}`
  })
  const api = client(service.baseUrl)
  const { key } = await signup(api)
  await api.get(`/public/v1/transactions?cursor=${PAN.query}`, { token: key })
  await api.get(`/public/v1/transactions/${PAN.path}`, { token: key })
  // Refused for its Idempotency-Key (test/privacy.pan-anywhere.test.ts), but its span and its access log
  // line are written all the same.
  const order = await newOrder(api, key)
  await api.post(PROCESS, cardBody(order.orderId, order.amount), {
    key,
    headers: { "idempotency-key": PAN.idempotencyKey, "x-request-id": PAN.requestId, "x-card-ref": PAN.header }
  })
  const last = await newOrder(api, key)
  const charged = await api.post(PROCESS, cardBody(last.orderId, last.amount), {
    key,
    headers: { "idempotency-key": randomUUID(), "x-request-id": LAST, [CVV_HEADER]: CVV }
  })
  expect(charged.status, charged.text).toBe(201)
  // Spans leave in batches every 200 ms.
  const until = Date.now() + 10_000
  while (!spans.join("").includes(LAST) && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
}, 90_000)

afterAll(async () => {
  await stopAll([service])
  collector?.close()
})

const holding = (text: string) =>
  Object.entries(PAN)
    .filter(([, pan]) => text.includes(pan))
    .map(([where]) => where)

/** Every attribute of every exported span, as [key, value as JSON]. */
const attributes = () =>
  spans.flatMap((batch) =>
    (JSON.parse(batch).resourceSpans ?? []).flatMap((rs: any) =>
      (rs.scopeSpans ?? []).flatMap((ss: any) =>
        (ss.spans ?? []).flatMap((s: any) =>
          (s.attributes ?? []).map((a: any) => [a.key as string, JSON.stringify(a.value)] as const)
        )
      )
    )
  )

describe("a card number in the URL or a header", () => {
  it("is not written to the process's debug access log", () => {
    const output = service.output()
    expect(output).toMatch(/"message":"request"/) // the access log is on
    expect(output).toContain(LAST)
    expect(holding(output)).toEqual([])
  })

  it("is not exported in span attributes (url.full, url.path, url.query, http.request.header.*)", () => {
    const all = attributes()
    expect(all.some(([key]) => key === "url.path")).toBe(true) // the HTTP server spans were exported
    const found = new Set(all.filter(([, value]) => holding(value).length > 0).map(([key]) => key))
    expect({ pans: holding(spans.join("\n")), attributes: [...found].sort() }).toEqual({ pans: [], attributes: [] })
  })

  it("leaves only the values of headers that describe the exchange: any other header's is [REDACTED]", () => {
    const all = attributes()
    const value = (key: string) => all.find(([k, v]) => k === key && v.includes(LAST))
    expect(value("http.request.header.x-request-id")).toBeDefined()
    const cvv = all.filter(([key]) => key === `http.request.header.${CVV_HEADER}`).map(([, v]) => JSON.parse(v))
    expect(cvv).toEqual([{ stringValue: "[REDACTED]" }])
    const card = all.filter(([key]) => key === "http.request.header.x-card-ref").map(([, v]) => JSON.parse(v))
    expect(card).toEqual([{ stringValue: "[REDACTED]" }])
    expect(all.some(([key, v]) => key === "http.request.header.content-type" && v.includes("application/json"))).toBe(
      true
    )
  })
})
