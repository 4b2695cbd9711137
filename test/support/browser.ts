import { existsSync } from "node:fs"
import { AxeBuilder } from "@axe-core/playwright"
import { chromium, type Page } from "playwright-core"
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

/** Headless, with the flags this machine needs: without the background-networking ones Chromium
 * tries hosts the closed network refuses. */
export const launchChromium = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  })

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
