import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumAvailable, launchChromium } from "./support/browser.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The API reference a merchant reads (issue 23.5, docs/api.md "Reference"): /docs in Debian's chromium
 * (playwright-core) makes no request leaving the host (every request URL recorded), fails none, and
 * does not scroll sideways at 360 px. A screenshot is left in the temp directory to look at.
 */
const available = chromiumAvailable("docs browser test")

let server: TestServer
let browser: Browser

beforeAll(async () => {
  if (!available) return
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe.skipIf(!available)("/docs in Chromium", () => {
  for (const width of [360, 1280]) {
    it(`${width} px: every request stays on the host, none fails, no horizontal scroll`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 800 } })
      const requests: Array<string> = []
      const failed: Array<string> = []
      page.on("request", (r) => requests.push(r.url()))
      page.on("requestfailed", (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`))
      page.on("response", (r) => {
        if (r.status() >= 400) failed.push(`${r.url()} ${r.status()}`)
      })
      // Requests the page events do not show (the favicon) still log a console error when they fail.
      page.on("console", (m) => {
        if (m.type() === "error") failed.push(`${m.location().url} ${m.text()}`)
      })
      page.on("pageerror", (e) => failed.push(String(e)))
      const response = await page.goto(`${server.baseUrl}/docs`, { waitUntil: "networkidle" })
      expect(response?.status()).toBe(200)
      // The reference rendered: its title and the v1 tags are on the page.
      await page.waitForFunction(
        "document.body.innerText.includes('Brazil Payment Gateway') && " +
          "document.body.innerText.includes('Transactions (v1)')",
        undefined,
        { timeout: 20_000 }
      )
      await page.waitForLoadState("networkidle")
      const origin = new URL(server.baseUrl).origin
      const away = requests.filter((url) => !url.startsWith(origin) && !url.startsWith("data:"))
      expect(away, requests.join("\n")).toEqual([])
      expect(failed).toEqual([])
      // The reference lays itself out again after its scripts run (its sidebar and panes follow the width
      // through resize observers): the settled page is what must not scroll sideways, so it has 5 s to settle.
      // Once, on a loaded machine, a 360 px page measured 24 px over right after `networkidle`, and once more
      // still after 5 s (a whole-suite run on 2 cores, 2026-11-27): it has 15 s.
      const settled = await page
        .waitForFunction("document.documentElement.scrollWidth <= document.documentElement.clientWidth", undefined, {
          timeout: 15_000
        })
        .then(
          () => true,
          () => false
        )
      await page.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/gateway-docs-${width}.png` })
      // On failure, the elements that reach past the viewport, to look at beside the screenshot.
      const pastNow = () =>
        page.evaluate(
          // In the document's coordinates (the page may be scrolled sideways, which moves every rectangle).
          `[...document.querySelectorAll("body, body *")]
              .filter((e) => e.getBoundingClientRect().right + window.scrollX > ${width})
              .slice(0, 10)
              .map((e) => e.tagName + "." + e.className + " " +
                Math.round(e.getBoundingClientRect().right + window.scrollX))
              .concat(["scrollX " + window.scrollX])`
        )
      const past = settled ? [] : await pastNow()
      // Settled, it may still lay itself out once more (seen once: 24 px over just after it had settled, in a
      // whole-suite run, 2026-11-27): what must hold is that it comes back within the wait, not one sample.
      const after = await page
        .waitForFunction("document.documentElement.scrollWidth <= document.documentElement.clientWidth", undefined, {
          timeout: 15_000
        })
        .then(
          () => true,
          () => false
        )
      const overflow = await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
      )
      // Seen twice in whole-suite runs (24 px over after settling): what reached past it then, for the next one.
      const late = after ? [] : await pastNow()
      if (!after) await page.screenshot({ path: `${process.env.TMPDIR ?? "/tmp"}/gateway-docs-${width}-late.png` })
      expect(settled && after ? 0 : overflow, JSON.stringify({ past, late })).toBeLessThanOrEqual(0)
      await page.close()
    }, 60_000)
  }
})
