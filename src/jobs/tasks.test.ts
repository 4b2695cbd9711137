import { parseCrontab } from "graphile-worker"
import { describe, expect, it } from "vitest"
import { CRONTAB } from "./tasks.ts"

describe("the crontab (docs/operations.md 'Scheduled jobs')", () => {
  it("gives every scheduled task few attempts: a failing run is failed within minutes, never retried for days", () => {
    const items = parseCrontab(CRONTAB)
    expect(items.map((i) => i.task).sort()).toEqual([
      "cleanup",
      "ledger_check",
      "reconcile_charges",
      "reconcile_pix",
      "return_bolepix_pix"
    ])
    for (const item of items) {
      expect(item.options.maxAttempts, item.task).toBeGreaterThanOrEqual(2)
      expect(item.options.maxAttempts, item.task).toBeLessThanOrEqual(3)
    }
  })
})
