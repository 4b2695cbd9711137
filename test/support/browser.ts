import { existsSync } from "node:fs"
import { chromium } from "playwright-core"

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
