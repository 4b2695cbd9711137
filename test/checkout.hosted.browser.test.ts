import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, expectNoSeriousAxe, launchChromium } from "./support/browser.ts"
import { brl, priceInstallment } from "./support/installments.ts"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The buyer chooses the installments on the hosted card form (issue 20 §4, docs/checkout.md "The buyer's
 * installments"), in Chromium: a charge allowing 12, the buyer picks 3 with the keyboard, pays with a test
 * card and sees "paid"; the v1 record carries the plan and its totals from the installment table. axe at
 * 360 and 1280 px, screenshots written and printed.
 */
const available = chromiumAvailable("hosted card form browser test")

let server: TestServer
let api: Client
let key: string
let browser: Browser
let shots: string

beforeAll(async () => {
  if (!available) return
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api, "Loja do João")).key
  shots = await mkdtemp(join(tmpdir(), "checkout-hosted-"))
  console.log(`hosted form screenshots in ${shots}`)
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const check = async (page: Page, name: string, width: number) => {
  if (width === 360) {
    expect(await page.evaluate("document.documentElement.scrollWidth"), `${name} scrolls sideways`).toBeLessThanOrEqual(
      360
    )
  }
  const path = join(shots, `${name}-${width}.png`)
  await page.screenshot({ path, fullPage: true })
  console.log(`hosted form screenshot: ${path}`)
  await expectNoSeriousAxe(page, name)
}

describe.skipIf(!available)("the buyer's installments on the hosted form, in Chromium", { timeout: 240_000 }, () => {
  it("a charge allowing 12: the buyer chooses 3, pays, sees paid; the record has the plan's totals", async () => {
    for (const width of [360, 1280]) {
      const created = await api.post(
        "/public/v1/transactions",
        {
          method: "credit_card",
          amount: 30_000,
          max_installments: 12,
          customer: { name: "João Lima", email: "joao@example.com", document: freshCpf() }
        },
        { token: key }
      )
      expect(created.status, created.text).toBe(201)
      const { hash, checkout_url } = created.body.data as { hash: string; checkout_url: string }

      const context = await browser.newContext({ viewport: { width, height: 900 } })
      const page = await context.newPage()
      const csp: Array<string> = []
      page.on("console", (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) csp.push(m.text())
      })
      await page.goto(checkout_url)
      const select = page.locator("#cc-installments")
      expect(await select.locator("option").count()).toBe(12)
      await check(page, "hosted-choose", width)

      // The keyboard alone: focus the list, move down two plans (à vista → 2x → 3x).
      await select.focus()
      await page.keyboard.press("ArrowDown")
      await page.keyboard.press("ArrowDown")
      expect(await select.inputValue()).toBe("3")
      const total = priceInstallment(30_000, 3) * 3
      await expect.poll(() => page.textContent("#cc-total")).toBe(brl(total))
      expect(await page.textContent("#cc-submit")).toBe(`Pagar ${brl(total)}`)

      await page.fill("#cc-holder", "JOAO LIMA")
      await page.fill("#cc-number", CARDS.visa)
      await page.fill("#cc-month", "12")
      await page.fill("#cc-year", String(new Date().getUTCFullYear() + 2))
      await page.fill("#cc-cvv", "123")
      await page.focus("#cc-cvv")
      await page.keyboard.press("Enter")
      await expect.poll(() => page.getAttribute("#checkout", "data-state"), { timeout: 10_000 }).toBe("paid")
      expect(await page.textContent("#status")).toBe("Pagamento confirmado")
      expect(await page.textContent(".amount")).toBe(brl(total))
      await check(page, "hosted-paid", width)
      expect(csp).toEqual([])
      await context.close()

      const read = await api.get(`/public/v1/transactions/${hash}`, { token: key })
      expect(read.body.data).toMatchObject({
        status: "paid",
        installments: 3,
        amount: 30_000,
        amount_total: total,
        amount_interest: total - 30_000,
        card: { brand: "Visa", last4: CARDS.visa.slice(-4) }
      })
    }
  })
})
