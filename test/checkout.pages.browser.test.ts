import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AxeBuilder } from "@axe-core/playwright"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { chromiumAvailable, launchChromium } from "./support/browser.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Every state of the buyer's page in a real browser, at a phone's 360 px and a desktop's 1280 px (issue 23
 * item 3, issue 19 item 6; CONTRACT-v1 §6): pending, paid, partially refunded, refunded, expired, an
 * invalid link, a card approved and refused. Each state is screenshotted (paths printed), has no horizontal
 * scroll at 360 px and no serious or critical axe violation.
 */
const available = chromiumAvailable("checkout pages browser test")

let server: TestServer
let api: Client
let key: string
let browser: Browser
let shots: string

beforeAll(async () => {
  if (!available) return
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api, "Loja da Ana")).key
  shots = await mkdtemp(join(tmpdir(), "checkout-pages-"))
  console.log(`checkout screenshots in ${shots}`)
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf() })
const card = (number: string) => ({ number, holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2035", cvv: "123" })

const charge = async (body: Record<string, unknown>) => {
  const r = await api.post("/public/v1/transactions", { customer: customer(), ...body }, { token: key })
  expect(r.status, r.text).toBe(201)
  return r.body.data as { hash: string; checkout_url: string; status: string }
}
const sandbox = async (hash: string, action: string) => {
  const r = await api.post(`/api/sandbox/transactions/${hash}/${action}`, undefined, { key })
  expect(r.status, r.text).toBe(200)
}
const refund = async (hash: string, amount?: number) => {
  const r = await api.post(`/public/v1/transactions/${hash}/refund`, amount ? { amount } : {}, { token: key })
  expect(r.status, r.text).toBe(200)
}

/**
 * Opens `url` at 360 and 1280 px: screenshot of each, no horizontal scroll on the phone, no serious or
 * critical accessibility violation, no CSP violation. Returns the page's text (no-break spaces kept).
 */
const visit = async (name: string, url: string, expectedStatus = 200) => {
  let text = ""
  for (const width of [360, 1280]) {
    // AxeBuilder wants a page of an explicit context.
    const context = await browser.newContext({ viewport: { width, height: 800 } })
    const page: Page = await context.newPage()
    const violations: Array<string> = []
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text())
    })
    const response = await page.goto(url)
    expect(response?.status(), name).toBe(expectedStatus)
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'")
    expect(await page.getAttribute("html", "lang")).toBe("pt-BR")
    if (width === 360) {
      expect(
        await page.evaluate("document.documentElement.scrollWidth"),
        `${name} scrolls sideways`
      ).toBeLessThanOrEqual(360)
    }
    const path = join(shots, `${name}-${width}.png`)
    await page.screenshot({ path, fullPage: true })
    console.log(`checkout screenshot: ${path}`)
    if (width === 360) {
      // Once per state: axe takes seconds per run on a busy 2-core machine, and the markup is the same.
      const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21aa"]).analyze()
      const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      expect(
        serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
        name
      ).toEqual([])
    }
    expect(violations).toEqual([])
    text = await page.evaluate("document.body.innerText")
    await context.close()
  }
  return text
}

describe.skipIf(!available)("every buyer page state in Chromium, at 360 and 1280 px", { timeout: 240_000 }, () => {
  it("pix pending → paid → partially refunded → refunded", async () => {
    const t = await charge({
      method: "pix",
      amount: 15_000,
      products: [{ name: "Camiseta azul", quantity: 2, unit_price: 7_500 }]
    })
    const pending = await visit("pix-pending", t.checkout_url)
    // "R$" never wraps apart from its value: a no-break space joins them.
    expect(pending).toContain("R$\u00a0150,00")
    expect(pending).toContain("Aguardando pagamento")
    // The deadline names its time zone.
    expect(pending).toMatch(/Pague até \d{2}\/\d{2}\/\d{4} às \d{2}:\d{2} \(horário de Brasília\)\./)

    await sandbox(t.hash, "pay")
    const paid = await visit("pix-paid", t.checkout_url)
    expect(paid).toContain("Pagamento confirmado")
    expect(paid).not.toContain("Pague com PIX")

    await refund(t.hash, 5_000)
    const partial = await visit("pix-partially-refunded", t.checkout_url)
    expect(partial).toContain("Estorno parcial")
    expect(partial).not.toContain("Pagamento estornado")
    expect(partial).toMatch(/Valor pago\s+R\$\u00a0150,00/)
    expect(partial).toMatch(/Valor estornado\s+R\$\u00a050,00/)
    expect(partial).toMatch(/Valor mantido\s+R\$\u00a0100,00/)

    await refund(t.hash)
    const refunded = await visit("pix-refunded", t.checkout_url)
    expect(refunded).toContain("Pagamento estornado")
    expect(refunded).toContain("O valor de R$\u00a0150,00 foi devolvido")
    expect(refunded).not.toContain("Estorno parcial")
  })

  it("billet pending, then expired: says what happened and what to do", async () => {
    const t = await charge({ method: "billet", amount: 9_990 })
    const pending = await visit("billet-pending", t.checkout_url)
    expect(pending).toContain("Pague com boleto")
    expect(pending).toContain("R$\u00a099,90")
    await sandbox(t.hash, "expire")
    const expired = await visit("billet-expired", t.checkout_url)
    expect(expired).toContain("Prazo expirado")
    expect(expired).toContain("O prazo para pagar terminou")
    expect(expired).toMatch(/este boleto não pode mais ser pago/)
    expect(expired).toContain("fale com a loja (Loja da Ana) e peça uma nova cobrança")
    expect(expired).not.toContain("Pague com boleto")
  })

  it("cards: approved in 3x and refused", async () => {
    const approved = await charge({ method: "credit_card", amount: 10_000, installments: 3, card: card(CARDS.visa) })
    const a = await visit("card-approved", approved.checkout_url)
    expect(a).toContain("Visa terminado em 4242")
    expect(a).toMatch(/3x de R\$\u00a0\d+,\d{2}/)
    expect(a).toContain("Pagamento confirmado")
    const refused = await charge({ method: "credit_card", amount: 10_000, card: card(CARDS.declined) })
    const r = await visit("card-refused", refused.checkout_url)
    expect(r).toContain("Pagamento recusado")
    expect(r).toContain("tente outro cartão ou fale com a loja (Loja da Ana)")
  })

  it("an invalid or old link: a pt-BR page for a browser, the JSON envelope for an API client", async () => {
    const text = await visit("invalid-link", `${server.baseUrl}/checkout/${"x".repeat(43)}`, 404)
    expect(text).toContain("Link de pagamento inválido ou expirado")
    expect(text).toContain("fale com a loja e peça um novo link de pagamento")
    const json = await fetch(`${server.baseUrl}/checkout/${"x".repeat(43)}`, {
      headers: { accept: "application/json" }
    })
    expect(json.status).toBe(404)
    expect(json.headers.get("content-type")).toContain("application/json")
    expect(await json.json()).toMatchObject({ code: "not_found" })
    const curl = await fetch(`${server.baseUrl}/checkout/${"x".repeat(43)}`, { headers: { accept: "*/*" } })
    expect(curl.headers.get("content-type")).toContain("application/json")
    // A path under /checkout/ that matches no route (a link cut or pasted with extra text) gets the page too.
    const html = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    const cut = await fetch(`${server.baseUrl}/checkout/${"x".repeat(20)}/oops`, { headers: { accept: html } })
    expect(cut.status).toBe(404)
    expect(cut.headers.get("content-security-policy")).toContain("script-src 'self'")
    expect(await cut.text()).toContain("Link de pagamento inválido ou expirado")
    const api = await fetch(`${server.baseUrl}/checkout/${"x".repeat(20)}/oops`, { headers: { accept: "*/*" } })
    expect(await api.json()).toMatchObject({ code: "route_not_found" })
  })
})
