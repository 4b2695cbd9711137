/**
 * The buyer's URL credentials (a checkout's token, a boleto PDF's or a PIX QR's token: docs/checkout.md "the
 * only credential") never reach the debug access log (docs/configuration.md: "credentials redacted") nor an
 * exported span (TracingSdk.ts), and the access log line carries its request's traceId when tracing is on
 * (docs/deployment.md).
 */
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "./support/config.ts"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

let gw: RoleProcess | undefined
let out = ""
const exported: Array<string> = []
let otlp: Server
let checkoutToken = ""
let pdfToken = ""
let cpf = ""

beforeAll(async () => {
  otlp = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      exported.push(Buffer.concat(chunks).toString("utf8"))
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  const otlpPort = await freePort()
  await new Promise<void>((r) => otlp.listen(otlpPort, "127.0.0.1", r))
  gw = await spawnRole(
    "api",
    {
      DATABASE_URL: await createMigratedTestDatabase(),
      LOG_LEVEL: "debug",
      RATE_LIMIT_PER_MINUTE: "100000",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpPort}`
    },
    { readyTimeoutMs: 60_000 }
  )
  gw.child.stdout!.on("data", (c: Buffer | string) => (out += String(c)))
  gw.child.stderr!.on("data", (c: Buffer | string) => (out += String(c)))

  const api = client(gw.baseUrl)
  const m = await signup(api, "Loja Tokens")
  cpf = freshCpf()
  const customer = { name: "Maria Pagadora", email: "maria.pagadora@example.com", document: cpf, ip: "203.0.113.7" }
  const card = await api.post(
    "/public/v1/transactions",
    { method: "credit_card", amount: 5000, customer },
    { token: m.key }
  )
  expect(card.status, card.text).toBe(201)
  const checkoutPath = new URL(card.body.data.checkout_url).pathname
  checkoutToken = checkoutPath.split("/")[2]!
  const billet = await api.post(
    "/public/v1/transactions",
    { method: "billet", amount: 5000, customer },
    { token: m.key }
  )
  expect(billet.status, billet.text).toBe(201)
  const pdfPath = new URL(billet.body.data.billet.pdf_url ?? billet.body.data.pdf_url).pathname
  pdfToken = pdfPath.split("/")[3]!
  // What the buyer's browser does with the links it was given.
  expect((await fetch(`${gw.baseUrl}${checkoutPath}`)).status).toBe(200)
  expect((await fetch(`${gw.baseUrl}${checkoutPath}/status`)).status).toBe(200)
  const pdf = await fetch(`${gw.baseUrl}${pdfPath}`)
  expect(pdf.status).toBe(200)
  // The PDF the token opens holds the payer's CPF: the token is a key to personal data.
  await pdf.arrayBuffer()
  await new Promise((r) => setTimeout(r, 1500)) // the batch span processor exports every 200 ms
}, 120_000)

afterAll(async () => {
  await stopAll([gw])
  otlp?.close()
})

describe("URL credentials of the buyer's pages", () => {
  it("the debug access log (documented as 'credentials redacted') does not write the checkout token", () => {
    expect(out).toContain('"message":"request"') // the access log ran
    expect(out).toContain("/checkout/")
    expect(out).not.toContain(checkoutToken)
  })

  it("the debug access log does not write the boleto PDF token", () => {
    expect(out).toContain("/documents/boleto/")
    expect(out).not.toContain(pdfToken)
  })

  it("exported spans do not carry the checkout or boleto PDF token (url.full / url.path)", () => {
    const all = exported.join("\n")
    expect(all).toContain("http.server")
    expect(all).not.toContain(checkoutToken)
    expect(all).not.toContain(pdfToken)
  })

  // docs/deployment.md "Tracing": "With it set, every request's log lines carry its `traceId`". The access log
  // line is built after the request's `annotateLogs({ requestId, traceId })` scope (envelope.ts) and names
  // only the requestId, so it cannot be joined to the request's trace.
  it("the debug access log line of a request carries its traceId when tracing is on", () => {
    const lines = out
      .split("\n")
      .filter((l) => l.includes('"message":"request"'))
      .map((l) => JSON.parse(l))
    expect(lines.length).toBeGreaterThan(0)
    expect(lines.filter((l) => typeof l.annotations?.traceId !== "string").map((l) => l.annotations?.url)).toEqual([])
  })
})
