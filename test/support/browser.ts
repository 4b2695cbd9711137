import { existsSync } from "node:fs"
import { AxeBuilder } from "@axe-core/playwright"
import { type Browser, chromium, type Page } from "playwright-core"
import { expect } from "vitest"

/** Debian's chromium (`.ci/run` installs it), driven by playwright-core. */
export const CHROMIUM = "/usr/bin/chromium"

/**
 * Whether the browser tests can run: in CI (CI set) a missing chromium fails the file; locally it is
 * skipped with a note naming the test.
 */
export const chromiumAvailable = (what: string): boolean => {
  const available = existsSync(CHROMIUM)
  if (!available && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`)
  if (!available) console.warn(`${what} skipped: ${CHROMIUM} not found (apt-get install -y chromium)`)
  return available
}

/**
 * Under libfaketime (`scripts/test-on.sh`, docs/development.md "On another day") Chromium aborts: it is
 * started without it, and each new context's clock is installed at the faked time, so that the pages and
 * the service agree on the day. `FAKETIME` is unset in every other run, which this leaves as it was.
 */
const faked = process.env.FAKETIME !== undefined
const unfaked = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name !== "LD_PRELOAD" && !name.startsWith("FAKETIME")) env[name] = value
  }
  return env
}
const onTheFakedDay = (browser: Browser): Browser => {
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (options) => {
    const context = await newContext(options)
    await context.clock.install({ time: Date.now() })
    return context
  }
  // A page of its own context, as Browser.newPage makes: closing the page closes the context.
  browser.newPage = async (options) => {
    const context = await browser.newContext(options)
    const page = await context.newPage()
    // The browser may be closing already; the context goes with it then.
    page.once("close", () => void context.close().catch(() => undefined))
    return page
  }
  return browser
}

/** Headless, with the flags this machine needs: without the background-networking ones Chromium
 * tries hosts the closed network refuses. */
export const launchChromium = async (): Promise<Browser> => {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    ...(faked ? { env: unfaked() } : {}),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  })
  return faked ? onTheFakedDay(browser) : browser
}

/**
 * axe-core on the page as it is: no serious or critical WCAG 2.1 A/AA violation (issue 20), each listed
 * with the elements it names when there is one.
 */
export const expectNoSeriousAxe = async (page: Page, name: string) => {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21aa"]).analyze()
  const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  expect(
    serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    name
  ).toEqual([])
}
