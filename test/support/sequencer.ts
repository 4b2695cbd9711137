import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * Longest test files first (docs/development.md "Test suite"). With several forks, a long file that
 * starts last runs alone at the end while the other forks sit idle; started first, it overlaps with the
 * short ones. vitest's own sequencer orders by the durations of the previous local run, which a fresh
 * CI checkout does not have (it then falls back to file size, which says little here: a short file
 * spawning four gateways outlasts a long one in-process). So the order comes from:
 * 1. this machine's last run of the file (vitest's cache), when there is one;
 * 2. otherwise the committed durations (test/support/durations.json, from a whole run on 2 cores;
 *    `npm run test:durations` rewrites it from a run's JSON report);
 * 3. a file in neither (new) runs first: it may be long, and it is the one being worked on.
 */
const committed: Record<string, number> = (() => {
  try {
    return JSON.parse(readFileSync(new URL("./durations.json", import.meta.url), "utf8")) as Record<string, number>
  } catch {
    return {}
  }
})()

export default class LongestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const root = this.ctx.config.root
    const duration = (spec: TestSpecification): number => {
      const path = relative(root, spec.moduleId)
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`)
      if (cached && !cached.failed && cached.duration > 0) return cached.duration
      return committed[path] ?? Number.POSITIVE_INFINITY
    }
    const weighed = files.map((spec) => ({ spec, ms: duration(spec) }))
    weighed.sort((a, b) => (a.ms === b.ms ? 0 : a.ms > b.ms ? -1 : 1))
    return weighed.map(({ spec }) => spec)
  }
}
