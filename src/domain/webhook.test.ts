import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nextRetryDelayMs } from "./webhook.ts"

const schedule = [5, 300, 1800]

describe("retry schedule", () => {
  it("follows the schedule within ±10% and ends after its last step", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (attempts, random) => {
          const delay = nextRetryDelayMs(schedule, attempts, random)
          const step = schedule[attempts - 1]
          if (step === undefined) {
            expect(delay).toBeUndefined()
          } else {
            expect(delay).toBeGreaterThanOrEqual(step * 900)
            expect(delay).toBeLessThanOrEqual(step * 1100)
          }
        }
      )
    )
  })

  it("gives the first retry after the first step", () => {
    expect(nextRetryDelayMs(schedule, 1, 0.5)).toBe(5000)
    expect(nextRetryDelayMs(schedule, 4, 0.5)).toBeUndefined()
  })
})
