import { Redacted } from "effect"
import { SignJWT } from "jose"
import type { Browser, Page, Request } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, launchChromium } from "./support/browser.ts"
import { client, type Client, signup } from "./support/http.ts"
import { cardBody, newOrder, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

// The page's globals, in the callbacks page.evaluate runs in the browser (this Node program has no DOM types).
declare const window: any
declare const document: any
declare const sessionStorage: any
declare const MutationObserver: any

/**
 * The web dashboard's query cache (dashboard/src/query.ts) keeps answers by page ("balance", "summary",
 * "recent", …), not by account. Whoever signs in next in the same tab never sees the previous merchant's
 * answers: the cache starts again when the session ends, by "Sair" or by an expired token (a 401,
 * docs/dashboard.md "a 401 … returns to the login page"), and an answer still on its way from the
 * previous session (polls run every second) is dropped rather than cached.
 */
const available = chromiumAvailable("dashboard session cache test")

let server: TestServer
let api: Client
let browser: Browser
let alice: Awaited<ReturnType<typeof signup>>
let bob: Awaited<ReturnType<typeof signup>>

// Alice's sale, of an amount nobody else has: R$ 9.876,54.
const ALICE_SALE = "9.876,54"

const signedInAs = async (page: Page, token: string) => {
  await page.goto(`${server.baseUrl}/dashboard`)
  await page.evaluate((t) => sessionStorage.setItem("gw.token", t), token)
  await page.reload()
  await page.getByRole("heading", { name: "Início" }).waitFor()
  await page.waitForFunction((s) => document.body.innerText.replace(/\u00a0/g, " ").includes(s), ALICE_SALE)
}

/** From now on the page notes whether `needle` is ever on screen, however briefly; `seen` reads it. */
const watchFor = (page: Page, needle: string) =>
  page.evaluate((n) => {
    const w = window as unknown as { seen: boolean }
    const look = () => {
      if (document.body.innerText.replace(/\u00a0/g, " ").includes(n)) w.seen = true
    }
    w.seen = false
    look()
    new MutationObserver(look).observe(document.body, { childList: true, subtree: true, characterData: true })
  }, needle)
const seen = (page: Page) => page.evaluate(() => (window as unknown as { seen: boolean }).seen)

/** Until Bob's own answers are on his home page (his balance, his summary, no sale), or he is signed out. */
const bobsAnswersOrLogin = (page: Page) =>
  page.waitForFunction(
    () => {
      if (document.querySelector("main.login")) return true
      const values = [...document.querySelectorAll(".tile-value")].map((e) => e.textContent)
      return values.length === 6 && !values.includes("…") && document.body.innerText.includes("Nada por aqui ainda.")
    },
    undefined,
    { timeout: 20_000 }
  )

interface Held {
  request: Request
  release: () => void
}

/** A slow network under the test's control: every dashboard request waits in `held` until released. */
const slowNetwork = async (page: Page) => {
  const held: Array<Held> = []
  await page.route("**/api/dashboard/**", async (route) => {
    await new Promise<void>((release) => held.push({ request: route.request(), release }))
    await route.continue().catch(() => undefined)
  })
  return held
}

/** Releases these requests and waits until their answers have reached the page. */
const arrived = async (requests: ReadonlyArray<Held>) => {
  requests.forEach((h) => h.release())
  await Promise.all(requests.map(async (h) => (await h.request.response())?.finished()))
}

beforeAll(async () => {
  if (!available) return
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  alice = await signup(api, "Loja da Alice")
  bob = await signup(api, "Loja do Bob")
  const order = await newOrder(api, alice.key, 987_654)
  const paid = await api.post(PROCESS, cardBody(order.orderId, 987_654), { key: alice.key })
  expect(paid.status, paid.text).toBe(201)
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe.skipIf(!available)("the dashboard's cache belongs to one session", () => {
  it("after the token expires, the next merchant on the tab sees none of the previous one's data", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    await signedInAs(page, alice.token)
    const held = await slowNetwork(page)

    // Her token expires (a correctly signed token past its `exp`): her next polls carry it.
    const key = new TextEncoder().encode(Redacted.value(server.config.jwtSecret))
    const past = Math.floor(Date.now() / 1000) - 3600
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(alice.accountId)
      .setIssuer("payment-gateway")
      .setIssuedAt(past - 900)
      .setExpirationTime(past)
      .sign(key)
    await page.evaluate((t) => sessionStorage.setItem("gw.token", t), expired)
    const withExpired = () => held.filter((h) => h.request.headers()["authorization"] === `Bearer ${expired}`)
    await expect.poll(() => withExpired().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2)

    // The first 401 returns the app to the login page.
    const first = withExpired()[0]!
    held.splice(held.indexOf(first), 1)
    await arrived([first])
    await page.getByRole("button", { name: "Entrar" }).waitFor({ timeout: 10_000 })
    const hers = held.splice(0)

    // Bob signs in in the same tab, his own answers held: the window in which a cached page of Alice's
    // would show. Then the rest of her session's answers arrive, late 401s included.
    await watchFor(page, ALICE_SALE)
    await page.getByLabel("E-mail").fill(bob.email)
    await page.getByLabel("Senha").fill(bob.password)
    await page.getByRole("button", { name: "Entrar" }).click()
    await page.getByRole("heading", { name: "Início" }).waitFor()
    await arrived(hers)
    await page.unroute("**/api/dashboard/**")
    held.splice(0).forEach((h) => h.release())

    await bobsAnswersOrLogin(page)
    expect(await seen(page), "Bob's home page showed Alice's sale").toBe(false)
    const signedOut = await page.getByRole("button", { name: "Entrar" }).count()
    expect(signedOut, "a late 401 of Alice's session signed Bob out").toBe(0)
  }, 60_000)

  it("after 'Sair', an answer of the previous session still on its way is dropped, not cached", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    await signedInAs(page, alice.token)

    const held = await slowNetwork(page)
    // Alice signs out while her recent activity (which lists her sale) is on its way.
    const recent = () => held.some((h) => h.request.url().includes("/api/dashboard/transactions"))
    await expect.poll(recent, { timeout: 10_000 }).toBe(true)
    await page.getByRole("button", { name: "Sair" }).click()
    await page.getByRole("button", { name: "Entrar" }).waitFor()
    const hers = held.splice(0)

    // Bob signs in; his own answers are still held when Alice's arrive in the page.
    await watchFor(page, ALICE_SALE)
    await page.getByLabel("E-mail").fill(bob.email)
    await page.getByLabel("Senha").fill(bob.password)
    await page.getByRole("button", { name: "Entrar" }).click()
    await page.getByRole("heading", { name: "Início" }).waitFor()
    await arrived(hers)

    // Going to another page and back shows what the cache holds for "Início" until Bob's answers come.
    await page.getByRole("link", { name: "Transações" }).click()
    await page.getByRole("heading", { name: "Transações" }).waitFor()
    await page.getByRole("link", { name: "Início" }).click()
    await page.getByRole("heading", { name: "Início" }).waitFor()
    await page.unroute("**/api/dashboard/**")
    held.splice(0).forEach((h) => h.release())
    await bobsAnswersOrLogin(page)
    expect(await seen(page), "Bob's home page showed Alice's sale").toBe(false)
  }, 60_000)
})
