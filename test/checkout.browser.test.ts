import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { chromiumAvailable, launchChromium } from "./support/browser.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The hosted checkout page (CONTRACT-v1 §6) in a real browser: Debian's chromium driven by
 * playwright-core. In CI (CI set) a missing chromium fails the test; locally it is skipped with a note.
 */
const available = chromiumAvailable("checkout browser test")

let server: TestServer
let api: Client
let key: string
let browser: Browser

beforeAll(async () => {
  if (!available) return
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api, "Loja da Ana")).key
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const charge = (body: Record<string, unknown>) =>
  api.post("/public/v1/transactions", body, { token: key }).then((r) => {
    if (r.status !== 201) throw new Error(`${r.status} ${r.text}`)
    return r.body.data
  })

describe.skipIf(!available)("hosted checkout in Chromium", () => {
  it("pix: shows the QR and copy button, turns paid after a sandbox payment without reload; no secrets", async () => {
    const document = freshCpf()
    const t = await charge({
      method: "pix",
      amount: 123_456,
      customer: { name: "Maria Silva", email: "maria@example.com", document },
      products: [{ name: "Camiseta azul", quantity: 2, unit_price: 61_728 }]
    })
    const page = await browser.newPage({ viewport: { width: 360, height: 780 } })
    const violations: Array<string> = []
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text())
    })
    const response = await page.goto(t.checkout_url)
    expect(response?.status()).toBe(200)
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'")
    expect(await page.getAttribute("html", "lang")).toBe("pt-BR")
    expect(await page.locator('meta[name="viewport"]').count()).toBe(1)
    const text = (await page.textContent("body"))!.replace(/\u00a0/g, " ")
    expect(text).toContain("Loja da Ana")
    expect(text).toContain("R$ 1.234,56")
    expect(text).toContain("Camiseta azul")
    expect(text).toContain(t.pix.qr_code)
    expect(await page.locator("#status").textContent()).toBe("Aguardando pagamento")
    const qrLoaded = await page.evaluate(
      "(() => { const img = document.querySelector('img.qr'); return img.complete && img.naturalWidth > 0 })()"
    )
    expect(qrLoaded).toBe(true)
    expect(await page.locator("button[data-copy]").count()).toBe(1)
    // Nothing secret: the buyer's document is not on the page, in any form.
    const html = await page.content()
    expect(html).not.toContain(document)
    expect(html).not.toContain(`${document.slice(0, 3)}.${document.slice(3, 6)}`)
    // No horizontal scroll at 360 px.
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360)
    const shots = await mkdtemp(join(tmpdir(), "checkout-"))
    const pending = join(shots, "pix-pending-360.png")
    await page.screenshot({ path: pending, fullPage: true })
    console.log(`checkout screenshot: ${pending}`)

    const paid = await api.post(`/api/sandbox/transactions/${t.hash}/pay`, undefined, { key })
    expect(paid.status).toBe(200)
    await page.waitForSelector("#paid:not([hidden])", { timeout: 10_000 })
    expect(await page.locator("#status").textContent()).toBe("Pagamento confirmado")
    expect(await page.locator("#pay").isHidden()).toBe(true)
    await page.screenshot({ path: join(shots, "pix-paid-360.png"), fullPage: true })
    expect(violations).toEqual([])
    await page.close()
  })

  it("card and refused: brand and last 4 only, the refusal shown as such; an unknown token is 404", async () => {
    const t = await charge({
      method: "credit_card",
      amount: 5_000,
      customer: { name: "João", email: "joao@example.com", document: freshCpf() },
      card: { number: CARDS.declined, holder_name: "JOAO", exp_month: "12", exp_year: "2035", cvv: "123" }
    })
    const page = await browser.newPage({ viewport: { width: 360, height: 780 } })
    await page.goto(t.checkout_url)
    const html = await page.content()
    expect(html).not.toContain(CARDS.declined)
    expect(html).not.toContain("123</")
    expect(await page.locator("#status").textContent()).toBe("Pagamento recusado")
    expect(await page.textContent("body")).toContain("Visa terminado em 0002")
    const missing = await page.goto(`${server.baseUrl}/checkout/${"x".repeat(43)}`)
    expect(missing?.status()).toBe(404)
    await page.close()
  })
})
