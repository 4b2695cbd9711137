/**
 * Rewrites test/support/durations.json, the order in which a fresh checkout runs the test files
 * (longest first: test/support/sequencer.ts), from a whole run's JSON report:
 *
 *   npx vitest run --reporter=json --outputFile=/tmp/suite.json && npm run test:durations -- /tmp/suite.json
 *
 * Only the order matters, so figures measured on a loaded machine serve as well as any.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const report = process.argv[2]
if (!report) {
  console.error("usage: npm run test:durations -- <vitest JSON report>")
  process.exit(2)
}
const { testResults } = JSON.parse(readFileSync(report, "utf8")) as {
  testResults: Array<{ name: string; startTime: number; endTime: number }>
}
const durations = Object.fromEntries(
  testResults
    .map((r) => [relative(root, r.name), Math.round(r.endTime - r.startTime)] as const)
    .sort((a, b) => b[1] - a[1])
)
writeFileSync(new URL("../test/support/durations.json", import.meta.url), `${JSON.stringify(durations, null, 2)}\n`)
console.log(`${Object.keys(durations).length} files written to test/support/durations.json`)
