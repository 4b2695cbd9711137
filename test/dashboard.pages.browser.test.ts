import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, expectNoSeriousAxe, launchChromium } from "./support/browser.ts"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 20 §3, the dashboard's operations pages in Chromium (docs/dashboard.md "Pages"): a full refund
 * from a transaction's page shows its `transaction.refunded` delivery with the request as sent; "Resend"
 * (confirmed with the keyboard) makes the receiver get it a second time with the same `webhook-id`; the
 * webhooks page rotates the secret (shown once, with its overlap: both signatures sent) and sends a test
 * event; the events list filters by type and opens an event's payload; the request log shows a redacted
 * body. axe (no serious or critical violation) and no sideways scroll at 360 and 1280 px; screenshots
 * written to the directory printed.
 */
const available = chromiumAvailable("dashboard pages browser test")

let server: TestServer
let api: Client
let receiver: Receiver
let browser: Browser
let context: BrowserContext
let page: Page
let shots: string
let m: Awaited<ReturnType<typeof signup>>
const cspViolations: Array<string> = []

const text = (p: Page) => p.evaluate<string>("document.body.innerText").then((t) => t.replace(/\u00a0/g, " "))

/** A paid v1 card charge of `amount` centavos. */
const paidCharge = async (amount: number) => {
  const reply = await api.post(
    "/public/v1/transactions",
    {
      method: "credit_card",
      amount,
      customer: { name: "Rita Alves", email: "rita@example.com", document: freshCpf(), ip: "203.0.113.9" },
      card: { number: CARDS.visa, holder_name: "RITA ALVES", exp_month: "12", exp_year: "2035", cvv: "123" }
    },
    { token: m.key }
  )
  expect(reply.status, reply.text).toBe(201)
  expect(reply.body.data.status).toBe("paid")
  return reply.body.data.hash as string
}

beforeAll(async () => {
  if (!available) return
  server = await startTestServer({ rateLimitPerMinute: 100_000, webhookAllowPrivateUrls: true })
  api = client(server.baseUrl)
  receiver = await startReceiver()
  m = await signup(api, "Loja da Rita")
  const hook = await api.post("/api/webhooks/upsert", { url: receiver.url }, { key: m.key })
  expect(hook.status, hook.text).toBe(201)
  browser = await launchChromium()
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  // Signed in as the login page would leave it: the JWT in sessionStorage (docs/dashboard.md "Serving").
  await context.addInitScript(`sessionStorage.setItem("gw.token", ${JSON.stringify(m.token)})`)
  page = await context.newPage()
  page.on("console", (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) cspViolations.push(msg.text())
  })
  shots = await mkdtemp(join(tmpdir(), "dashboard-pages-"))
  console.log(`dashboard pages screenshots in ${shots}`)
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await receiver?.close()
  await server?.close()
})

describe.skipIf(!available)("the dashboard's operations pages in Chromium", { timeout: 120_000 }, () => {
  let refundedId = ""

  it("a refund from the detail page shows its transaction.refunded delivery; Resend delivers it again", async () => {
    refundedId = await paidCharge(1_000)
    await page.goto(`${server.baseUrl}/dashboard/transactions/${refundedId}`)
    await page.getByRole("heading", { name: "Linha do tempo" }).waitFor()
    await page.getByLabel("Valor do estorno (R$)").fill("10,00")
    await page.getByRole("button", { name: "Estornar", exact: true }).click()
    await page.getByRole("dialog").waitFor()
    await page.getByRole("dialog").getByRole("button", { name: "Confirmar" }).click()
    await page.locator('[data-status="REFUNDED"]').waitFor({ timeout: 5_000 })

    // The timeline refreshes by itself and shows the refund's delivery; expanded, the request as sent.
    const delivery = page.locator("[data-delivery]", { hasText: "transaction.refunded" })
    await delivery.waitFor({ timeout: 10_000 })
    await receiver.waitFor(
      (rs) => rs.filter((r) => r.body.includes(refundedId) && r.body.includes("transaction.refunded")).length === 1,
      10_000,
      "transaction.refunded delivered once"
    )
    // The entry names its event once, in the summary that expands (not again as the entry's title).
    const entry = page.locator("ol.timeline li.k-delivery", { has: delivery })
    expect(await entry.locator("strong", { hasText: "transaction.refunded" }).count()).toBe(1)
    await delivery.locator("summary").click()
    const body = delivery.locator("[data-request-body]")
    await body.waitFor({ timeout: 5_000 })
    const sent = receiver.requests.find((r) => r.body.includes(refundedId) && r.body.includes("transaction.refunded"))!
    expect(await body.innerText()).toBe(sent.body)
    expect(await delivery.locator("[data-request-headers]").innerText()).toContain(
      `webhook-id: ${sent.headers["webhook-id"]}`
    )
    await delivery.locator("[data-response-status]", { hasText: "200" }).waitFor({ timeout: 5_000 })
    await expectNoSeriousAxe(page, "detail with a delivery open")
    await page.screenshot({ path: join(shots, "detail-delivery-1280.png"), fullPage: true })

    // Resend, confirmed with the keyboard: Cancel has the focus, Tab to Confirm, Enter.
    await delivery.getByRole("button", { name: /Reenviar/ }).focus()
    await page.keyboard.press("Enter")
    const dialog = page.getByRole("dialog")
    await dialog.waitFor()
    expect(await dialog.innerText()).toContain("transaction.refunded")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    const twice = await receiver.waitFor(
      (rs) => rs.filter((r) => r.body.includes(refundedId) && r.body.includes("transaction.refunded")).length === 2,
      10_000,
      "transaction.refunded delivered twice"
    )
    const both = twice.filter((r) => r.body.includes(refundedId) && r.body.includes("transaction.refunded"))
    expect(both[1]!.headers["webhook-id"]).toBe(both[0]!.headers["webhook-id"])
    expect(both[1]!.body).toBe(both[0]!.body)
    // The open record shows the new attempt.
    await delivery.locator("[data-attempts]", { hasText: "2" }).waitFor({ timeout: 5_000 })
  })

  it("webhooks: rotate the secret (shown once; both sign during the overlap), send a test event", async () => {
    const before = (await api.get("/api/dashboard/webhook", { token: m.token })).body.secret as string
    await page.goto(`${server.baseUrl}/dashboard/webhooks`)
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor()
    expect(await text(page)).not.toContain(before) // masked until issued
    await page.getByLabel("Sobreposição").selectOption(String(3_600))
    await page.getByRole("button", { name: "Trocar o segredo" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Confirmar" }).click()
    const shown = page.locator("[data-new-secret]")
    await shown.waitFor()
    const secret = await shown.innerText()
    expect(secret).toMatch(/^whsec_/)
    expect(secret).not.toBe(before)
    expect((await api.get("/api/dashboard/webhook", { token: m.token })).body.secret).toBe(secret)
    expect(await page.locator("[data-rotated]").innerText()).toMatch(
      /Até \d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}:\d{2} (BRT|GMT-3)/
    )

    // "Send test event" with the keyboard; it arrives signed twice (new and previous secret).
    await page.getByRole("button", { name: "Enviar evento de teste" }).focus()
    await page.keyboard.press("Enter")
    await page.locator("[data-test-sent]").waitFor()
    const [test] = (
      await receiver.waitFor((rs) => rs.some((r) => r.body.includes("webhook.test")), 10_000, "webhook.test")
    ).filter((r) => r.body.includes("webhook.test"))
    expect(test!.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
    // It is listed among the deliveries, and opens to its request.
    const item = page.locator("[data-delivery]", { hasText: "webhook.test" })
    await item.waitFor({ timeout: 5_000 })
    await item.locator("summary").click()
    await item.locator("[data-request-body]").waitFor()
    expect(await item.locator("[data-request-body]").innerText()).toBe(test!.body)

    await page.getByLabel(/Reenviar as entregas com falha/).fill("2020-01-01T00:00")
    await page
      .locator("form", { has: page.locator("#dl-since") })
      .getByRole("button")
      .click()
    await page.locator("[data-resent-failed]").waitFor()
  })

  it("events: filtered by type, one event with its payload", async () => {
    await page.goto(`${server.baseUrl}/dashboard/events`)
    await page.locator("[data-event]").first().waitFor()
    await page.getByLabel("Tipo de evento").selectOption("transaction.refunded")
    await page.getByRole("button", { name: "Filtrar" }).click()
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1)
    expect(await page.locator("tbody").innerText()).toContain("transaction.refunded")
    await page.locator("[data-event]").first().click()
    const payload = page.locator("[data-payload]")
    await payload.waitFor()
    const record = (await api.get(`/api/events?transactionId=${refundedId}&type=transaction.refunded`, { key: m.key }))
      .body.events[0]
    expect(JSON.parse(await payload.innerText())).toEqual(record.payload)
  })

  it("the request log shows the API's requests with a redacted body", async () => {
    await page.goto(`${server.baseUrl}/dashboard/request-log`)
    const row = page.locator("tr", {
      has: page.locator("[data-request-path]", { hasText: "POST /public/v1/transactions" })
    })
    await row.first().waitFor({ timeout: 5_000 })
    await row.first().locator("summary").click()
    const body = await row.first().locator("[data-request-body]").innerText()
    expect(body).toContain("[REDACTED]")
    expect(body).not.toContain(CARDS.visa)
    expect(await row.first().locator("[data-request-status]").innerText()).toBe("201")
  })

  it("every new page: no serious axe violation, no sideways scroll at 360 px, screenshots", async () => {
    const event = (await api.get("/api/events?limit=1", { key: m.key })).body.events[0].id as string
    const routes = [
      ["events", "/dashboard/events"],
      ["event", `/dashboard/events/${event}`],
      ["webhooks", "/dashboard/webhooks"],
      ["request-log", "/dashboard/request-log"],
      ["detail", `/dashboard/transactions/${refundedId}`]
    ] as const
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      for (const [name, path] of routes) {
        await page.goto(`${server.baseUrl}${path}`)
        await page.locator("#page-title").waitFor()
        await page
          .locator("text=Carregando…")
          .first()
          .waitFor({ state: "detached", timeout: 5_000 })
          .catch(() => {})
        // Opened records count too: the first delivery or logged body expanded.
        const summary = page.locator("main details summary").first()
        if ((await summary.count()) > 0) await summary.click()
        await page.waitForTimeout(300)
        await expectNoSeriousAxe(page, `${name} at ${width}`)
        const scrollWidth = await page.evaluate<number>("document.documentElement.scrollWidth")
        expect(scrollWidth, `${name} at ${width}`).toBeLessThanOrEqual(width)
        const path2 = join(shots, `${name}-${width}.png`)
        await page.screenshot({ path: path2, fullPage: true })
        console.log(`dashboard pages screenshot: ${path2}`)
      }
    }
    // Keyboard: the menu reaches the new pages (at 1280 the menu is open; Tab from the skip link).
    await page.goto(`${server.baseUrl}/dashboard`)
    await page.locator("#page-title").waitFor()
    let reached = false
    for (let i = 0; i < 30 && !reached; i++) {
      await page.keyboard.press("Tab")
      reached = (await page.evaluate<string>("document.activeElement?.textContent ?? ''")) === "Log de requisições"
    }
    expect(reached).toBe(true)
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: "Log de requisições" }).waitFor()
    expect(cspViolations).toEqual([])
  }, 240_000)
})
