import { mkdtemp } from "node:fs/promises"
import { readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client } from "./support/http.ts"
import { cardBody, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { chromiumAvailable, expectNoSeriousAxe, launchChromium } from "./support/browser.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 20 §3: the web dashboard in Chromium. A merchant signs up and signs in through the page; payments
 * made through the API show on the transactions page within 2 s without a reload; the detail page refunds
 * R$ 10,00 after a confirmation; the CSV export holds exactly the API list's transactions; every page has
 * no serious or critical axe violation and no horizontal scroll at 360 px, under a CSP that nothing breaks.
 * Screenshots at 360 and 1280 px go to the directory printed.
 */
const available = chromiumAvailable("dashboard browser test")

let server: TestServer
let api: Client
let browser: Browser
let context: BrowserContext
let page: Page
let shots: string
const email = `dash-${process.pid}-${Date.now()}@example.com`
const password = "correct horse battery"
let key = ""
let token = ""
const cspViolations: Array<string> = []

const ROUTES = [
  ["home", "/dashboard"],
  ["transactions", "/dashboard/transactions"],
  ["customers", "/dashboard/customers"],
  ["balance", "/dashboard/balance"],
  ["withdrawals", "/dashboard/withdrawals"],
  ["subaccounts", "/dashboard/subaccounts"],
  ["api-keys", "/dashboard/api-keys"],
  ["webhooks", "/dashboard/webhooks"]
] as const

const pay = async (amount: number) => {
  const order = await newOrder(api, key, amount)
  const reply = await api.post(PROCESS, cardBody(order.orderId, amount), { key })
  expect(reply.status, reply.text).toBe(201)
  return reply.body.transactionId as string
}

const text = (p: Page) => p.evaluate<string>("document.body.innerText").then((t) => t.replace(/\u00a0/g, " "))

beforeAll(async () => {
  if (!available) return
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  browser = await launchChromium()
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  page = await context.newPage()
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text())
  })
  shots = await mkdtemp(join(tmpdir(), "dashboard-"))
  console.log(`dashboard screenshots in ${shots}`)
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe.skipIf(!available)("the web dashboard in Chromium", () => {
  it("serves the page with a strict CSP, hashed assets cached for a year", async () => {
    const reply = await fetch(`${server.baseUrl}/dashboard`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-security-policy")).toMatch(/script-src 'self';.*style-src 'self'/)
    const html = await reply.text()
    expect(html).not.toMatch(/<script>|<style|style=/)
    const js = /\/dashboard\/assets\/(main-[A-Z0-9]+\.js)/.exec(html)![1]!
    const asset = await fetch(`${server.baseUrl}/dashboard/assets/${js}`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    // An unknown asset is a 404 with the same security headers as every answer (docs/dashboard.md).
    const missing = await fetch(`${server.baseUrl}/dashboard/assets/nope.js`)
    expect(missing.status).toBe(404)
    expect(missing.headers.get("content-security-policy")).toBe(reply.headers.get("content-security-policy"))
    expect(missing.headers.get("x-content-type-options")).toBe("nosniff")
    expect(missing.headers.get("x-frame-options")).toBe("DENY")
    // A client-side route answers the same page (a reload on /dashboard/transactions works).
    expect(await (await fetch(`${server.baseUrl}/dashboard/transactions/x`)).text()).toBe(html)
  })

  it("signs up and signs in through the page, pt-BR by default, and shows home", async () => {
    await page.goto(`${server.baseUrl}/dashboard`)
    expect(await page.getAttribute("html", "lang")).toBe("pt-BR")
    await expectNoSeriousAxe(page, "login")
    await page.screenshot({ path: join(shots, "login-1280.png"), fullPage: true })
    await page.getByRole("button", { name: "Criar conta" }).click()
    await page.getByLabel("Nome").fill("Loja da Bia")
    await page.getByLabel("E-mail").fill(email)
    await page.getByLabel("Senha").fill(password)
    await page.getByRole("button", { name: "Criar conta" }).first().click()
    await page.getByRole("heading", { name: "Início" }).waitFor()
    expect(await text(page)).toContain("Disponível")
    // The test's own API key, for the payments "made elsewhere".
    token = (await api.post("/api/auth/login", { email, password })).body.accessToken
    key = (await api.post("/api/dashboard/api-keys/primary/regenerate", undefined, { token })).body.fullKey
  })

  it("a card payment made through the API shows on the transactions page within 2 s, without a reload", async () => {
    await page.getByRole("link", { name: "Transações" }).click()
    await page.getByRole("heading", { name: "Transações" }).waitFor()
    await page.evaluate("window.marker = 42")
    const id = await pay(123_456)
    const started = Date.now()
    await page.locator(`[data-transaction="${id}"]`).waitFor({ timeout: 2_000 })
    console.log(`payment visible after ${Date.now() - started} ms`)
    // A PIX charge shown pending turns paid when it is paid elsewhere (the sandbox PSP), still no reload.
    const order = await newOrder(api, key, 4_321)
    const pix = await api.post(PROCESS, pixBody(order.orderId, 4_321), { key })
    expect(pix.status, pix.text).toBe(201)
    const row = page.locator("tr", { has: page.locator(`[data-transaction="${pix.body.transactionId}"]`) })
    await row.locator(".s-PENDING").waitFor({ timeout: 2_000 })
    const paid = await api.post(`/api/sandbox/transactions/${pix.body.transactionId}/pay`, undefined, { key })
    expect(paid.status, paid.text).toBeLessThan(300)
    const paidAt = Date.now()
    await row.locator(".s-PAID").waitFor({ timeout: 2_000 })
    console.log(`pix paid visible after ${Date.now() - paidAt} ms`)
    expect(await page.evaluate("window.marker")).toBe(42)
    expect(await text(page)).toContain("R$ 1.234,56")
    // Dates in São Paulo with the zone named.
    expect(await text(page)).toMatch(/\d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}:\d{2} (BRT|GMT-3|UTC-3)/)
  })

  it("opens the detail and refunds R$ 10,00 after a confirmation", async () => {
    const id = await pay(50_000)
    await page.locator(`[data-transaction="${id}"]`).click()
    await page.getByRole("heading", { name: "Linha do tempo" }).waitFor()
    await page.getByLabel("Valor do estorno (R$)").fill("10,00")
    await page.getByRole("button", { name: "Estornar", exact: true }).click()
    const dialog = page.getByRole("dialog")
    await dialog.waitFor()
    expect(await dialog.innerText()).toContain("R$ 10,00")
    await expectNoSeriousAxe(page, "refund confirmation")
    // Keyboard only: the dialog's buttons take the focus in turn; Enter confirms.
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    await page.locator("[data-refunded]", { hasText: "R$ 10,00" }).waitFor({ timeout: 5_000 })
    await page.locator('[data-status="PARTIAL_REFUND"]').waitFor()
    expect(await text(page)).toContain("refund succeeded")
    const stored = await server.db.query("select refunded_amount from transactions where id = $1", [id])
    expect(Number(stored.rows[0].refunded_amount)).toBe(1_000)
    await page.screenshot({ path: join(shots, "detail-1280.png"), fullPage: true })
  })

  it("the CSV export holds exactly the transactions of the API list for the period", async () => {
    await pay(777)
    await page.getByRole("link", { name: "Transações" }).click()
    await page.getByRole("heading", { name: "Transações" }).waitFor()
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Exportar CSV" }).click()
    ])
    const csv = await readFile((await download.path())!, "utf8")
    const csvIds = csv
      .trim()
      .split("\r\n")
      .slice(1)
      .map((l) => l.split(",")[0])
    const listed: Array<string> = []
    let cursor: string | null = null
    do {
      const q: string = cursor ? `&cursor=${cursor}` : ""
      const reply = await api.get(`/api/dashboard/transactions?limit=2${q}`, { token })
      listed.push(...reply.body.data.map((t: { id: string }) => t.id))
      cursor = reply.body.nextCursor
    } while (cursor)
    expect(csvIds).toEqual(listed)
    expect(listed.length).toBe(4)
  })

  it("keyboard only: the skip link and the menu reach every page", async () => {
    await page.goto(`${server.baseUrl}/dashboard`)
    await page.getByRole("heading", { name: "Início" }).waitFor()
    await page.keyboard.press("Tab")
    expect(await page.evaluate("document.activeElement.textContent")).toBe("Pular para o conteúdo")
    const link = page.getByRole("link", { name: "Clientes" })
    await link.focus()
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: "Clientes" }).waitFor()
    // Focus moves to the new page's title once it has rendered (an effect after the heading appears).
    await page.waitForFunction("document.activeElement?.id === 'page-title'", undefined, { timeout: 5_000 })
    expect(await page.evaluate("document.activeElement.id")).toBe("page-title")
  })

  it("switches to English and shows the test/live switch", async () => {
    await page.screenshot({ path: join(shots, "before-english.png"), fullPage: true })
    await page.getByLabel("Idioma").selectOption("en")
    await page.getByRole("heading", { name: "Customers" }).waitFor()
    expect(await page.getAttribute("html", "lang")).toBe("en")
    await page.getByRole("radio", { name: "Live" }).click()
    // The notice follows the API's 400 mode_unavailable (this server has no live rail).
    await page.getByRole("alert").filter({ hasText: "Live mode is not available yet" }).waitFor()
    await page.getByRole("radio", { name: "Test" }).click()
    await page.getByLabel("Language").selectOption("pt-BR")
  }, 60_000)

  it("every page: no serious axe violation, no horizontal scroll at 360 px, screenshots at 360 and 1280", async () => {
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      for (const [name, path] of ROUTES) {
        await page.goto(`${server.baseUrl}${path}`)
        await page.locator("#page-title").waitFor()
        await page.waitForLoadState("networkidle").catch(() => undefined)
        await page
          .locator("text=Carregando…")
          .first()
          .waitFor({ state: "detached", timeout: 5_000 })
          .catch(() => {})
        await expectNoSeriousAxe(page, `${name} at ${width}`)
        const scrollWidth = await page.evaluate<number>("document.documentElement.scrollWidth")
        expect(scrollWidth, `${name} at ${width}`).toBeLessThanOrEqual(width)
        await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true })
      }
      // The detail page too.
      await page.goto(`${server.baseUrl}/dashboard/transactions`)
      await page.locator("[data-transaction]").first().click()
      await page.getByRole("heading", { name: "Linha do tempo" }).waitFor()
      await expectNoSeriousAxe(page, `detail at ${width}`)
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width)
      await page.screenshot({ path: join(shots, `detail-${width}.png`), fullPage: true })
    }
    expect(cspViolations).toEqual([])
  }, 240_000)
})
