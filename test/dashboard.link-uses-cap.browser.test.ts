import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { chromiumAvailable, launchChromium } from "./support/browser.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The dashboard's "Editar" sent `max_uses: Number(typed)`. A cap typed as anything but digits ("dez",
 * "10 usos") was NaN, which JSON writes as null, and null on PATCH means "no cap": the link's existing cap
 * was silently removed and the save reported success (now `wireCount`, dashboard/src/pages/linkFields.tsx).
 * docs/payment-links.md ("Items and metadata in the forms") says the form does not guess: a value that is
 * not a number must be refused, never turned into "clear". The same form sent "1.000" (a thousand, as a
 * Brazilian writes it) as 1.
 */
const available = chromiumAvailable("dashboard link uses cap")

let server: TestServer
let api: Client
let browser: Browser
let merchant: Page
let m: Awaited<ReturnType<typeof signup>>

beforeAll(async () => {
  if (!available) return
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  m = await signup(api, "Loja do Limite")
  browser = await launchChromium()
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  await context.addInitScript(`sessionStorage.setItem("gw.token", ${JSON.stringify(m.token)})`)
  merchant = await context.newPage()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const editCap = async (name: string, typed: string) => {
  await merchant.goto(`${server.baseUrl}/dashboard/payment-links`)
  const row = merchant.getByRole("row", { name: new RegExp(name) })
  await row.getByRole("button", { name: /Editar/ }).click()
  const panel = merchant.getByRole("region", { name: /Editar link/ })
  await panel.getByLabel("Limite de usos").fill(typed)
  await panel.getByRole("button", { name: "Salvar" }).click()
  // Either refused (an alert in the panel) or saved (the panel closes).
  await Promise.race([
    panel.getByRole("alert").waitFor({ timeout: 5_000 }),
    panel.waitFor({ state: "detached", timeout: 5_000 })
  ]).catch(() => undefined)
}

describe.skipIf(!available)("review: the dashboard's uses cap on an edit", { timeout: 120_000 }, () => {
  it("a cap typed as words does not remove the link's cap of 5", async () => {
    const made = await api.post(
      "/public/v1/payment_links",
      { name: "Ingresso VIP", amount: 10_000, payment_methods: ["pix"], max_uses: 5 },
      { token: m.key }
    )
    expect(made.status, made.text).toBe(201)
    await editCap("Ingresso VIP", "dez")
    const link = await api.get(`/public/v1/payment_links/${made.body.data.id}`, { token: m.key })
    // Current code: max_uses null (no cap at all), the link takes unlimited visits.
    expect(link.body.data.max_uses).toBe(5)
  })

  it("a cap typed as 1.000 (a thousand in pt-BR) is not saved as 1", async () => {
    const made = await api.post(
      "/public/v1/payment_links",
      { name: "Rifa", amount: 1_000, payment_methods: ["pix"], max_uses: 5 },
      { token: m.key }
    )
    expect(made.status, made.text).toBe(201)
    await editCap("Rifa", "1.000")
    const link = await api.get(`/public/v1/payment_links/${made.body.data.id}`, { token: m.key })
    expect(link.body.data.max_uses).not.toBe(1)
  })
})
