import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type LoopbackFake, startLoopbackFake } from "./fakes/loopback/server.ts"
import { chromiumAvailable, launchChromium } from "./support/browser.ts"
import { client, type Client, liveMerchant, signup } from "./support/http.ts"
import { cardBody, newOrder, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

// The page's globals, in the callbacks page.evaluate runs in the browser (this Node program has no DOM types).
declare const window: any
declare const document: any
declare const sessionStorage: any
declare const localStorage: any
declare const MutationObserver: any

/**
 * The web dashboard in live mode (docs/dashboard.md "Mode"): with live rails configured (here the
 * test-only loopback provider) the live view shows the merchant's live tenant, asked of the API with
 * `X-Gateway-Mode: live`, and switching from test never leaves the test tenant's sales on screen under
 * the live header. Without live rails the API answers 400 `mode_unavailable`, and the app then says in
 * the merchant's words that live mode is not available, instead of the pages.
 */
const available = chromiumAvailable("dashboard live mode test")

const ENV = {
  LIVE_LOOPBACK_ALLOWED: "true",
  LIVE_ACQUIRERS: "loopback",
  LIVE_PIX_PROVIDER: "loopback"
} as Record<string, string>
const saved: Record<string, string | undefined> = {}

let fake: LoopbackFake
let plain: TestServer
let server: TestServer
let api: Client
let browser: Browser
let merchant: Awaited<ReturnType<typeof liveMerchant>>
let liveId = ""
let testId = ""

const text = (p: Page) => p.evaluate<string>("document.body.innerText").then((t) => t.replace(/\u00a0/g, " "))

const openPage = async (base: string, token: string, mode: "test" | "live", path: string) => {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
  await page.goto(`${base}/dashboard`)
  await page.evaluate(
    ([t, m]) => {
      sessionStorage.setItem("gw.token", t)
      localStorage.setItem("gw.mode", m)
    },
    [token, mode]
  )
  await page.goto(`${base}/dashboard${path}`)
  return page
}

beforeAll(async () => {
  if (!available) return
  // A gateway whose operator configured no live rail, started before the variables below are set.
  plain = await startTestServer({ rateLimitPerMinute: 100_000 })
  fake = await startLoopbackFake()
  for (const [name, value] of Object.entries({ ...ENV, LOOPBACK_PROVIDER_URL: fake.url })) {
    saved[name] = process.env[name]
    process.env[name] = value
  }
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  merchant = await liveMerchant(api, "Loja ao Vivo")
  // A live sale of R$ 3.210,99 and a test sale of R$ 1.234,56.
  const order = await newOrder(api, merchant.key, 321_099)
  const paid = await api.post(PROCESS, cardBody(order.orderId, 321_099), { key: merchant.key })
  expect(paid.status, paid.text).toBe(201)
  liveId = paid.body.transactionId
  const testOrder = await newOrder(api, merchant.testKey, 123_456)
  const testPaid = await api.post(PROCESS, cardBody(testOrder.orderId, 123_456), { key: merchant.testKey })
  expect(testPaid.status, testPaid.text).toBe(201)
  testId = testPaid.body.transactionId
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
  await plain?.close()
  await fake?.close()
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

describe.skipIf(!available)("the web dashboard in live mode", () => {
  it("the API's live view lists the live sale, not the test one", async () => {
    const reply = await api.get("/api/dashboard/transactions", {
      token: merchant.token,
      headers: { "x-gateway-mode": "live" }
    })
    expect(reply.status, reply.text).toBe(200)
    const ids = reply.body.data.map((t: { id: string }) => t.id)
    expect(ids).toContain(liveId)
    expect(ids).not.toContain(testId)
  })

  it("opened in live mode, the transactions page lists the live tenant's sale", async () => {
    const page = await openPage(server.baseUrl, merchant.token, "live", "/transactions")
    await page.locator("header.top.live").waitFor()
    // The live sale's row, or whatever stands in its place.
    await page.locator(`[data-transaction="${liveId}"], .problem`).first().waitFor({ timeout: 15_000 })
    const shown = await text(page)
    expect(shown).not.toContain("ainda não está disponível")
    expect(await page.locator(`[data-transaction="${liveId}"]`).count(), shown).toBe(1)
    expect(await page.locator(`[data-transaction="${testId}"]`).count(), shown).toBe(0)
  }, 60_000)

  it("switching from test to live shows the live sale and never the test one under the live header", async () => {
    const page = await openPage(server.baseUrl, merchant.token, "test", "/transactions")
    await page.locator(`[data-transaction="${testId}"]`).waitFor()
    // Notes any moment at which the header says live while the test sale is listed.
    await page.evaluate((id) => {
      const w = window as unknown as { mixed: boolean }
      w.mixed = false
      new MutationObserver(() => {
        if (document.querySelector("header.top.live") && document.querySelector(`[data-transaction="${id}"]`))
          w.mixed = true
      }).observe(document.body, { childList: true, subtree: true, attributes: true })
    }, testId)
    await page.getByRole("radio", { name: "Produção" }).click()
    await page.locator(`[data-transaction="${liveId}"]`).waitFor({ timeout: 15_000 })
    expect(await page.evaluate(() => (window as unknown as { mixed: boolean }).mixed)).toBe(false)
    expect(await page.locator(`[data-transaction="${testId}"]`).count()).toBe(0)
  }, 60_000)

  it("without live rails, the API's refusal shows as a notice the merchant reads, not the pages", async () => {
    const other = await signup(client(plain.baseUrl), "Loja Só Teste")
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    await page.goto(`${plain.baseUrl}/dashboard`)
    await page.evaluate((t) => {
      sessionStorage.setItem("gw.token", t)
      localStorage.setItem("gw.mode", "live")
    }, other.token)
    const refused = page.waitForResponse((r) => r.url().includes("/api/dashboard/") && r.status() === 400, {
      timeout: 15_000
    })
    await page.reload()
    expect(await (await refused).json()).toMatchObject({ code: "mode_unavailable" })
    const notice = page.getByRole("alert").filter({ hasText: "O modo produção ainda não está disponível" })
    await notice.waitFor()
    const shown = await text(page)
    // The operator's variables are not the merchant's business; the pages are not shown half-empty.
    expect(shown).not.toContain("LIVE_ACQUIRERS")
    expect(shown).not.toContain("X-Gateway-Mode")
    expect(await page.locator("#page-title").count()).toBe(0)
    await page.getByRole("radio", { name: "Teste" }).click()
    await page.getByRole("heading", { name: "Início" }).waitFor()
    expect(await notice.count()).toBe(0)
  }, 60_000)
})
