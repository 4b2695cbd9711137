import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { addDaysInSaoPaulo, endOfDayInSaoPaulo, saoPauloDate } from "./time.ts"

describe("São Paulo calendar", () => {
  it("knows the local date across the UTC midnight", () => {
    expect(saoPauloDate(new Date("2026-11-21T02:59:59Z"))).toBe("2026-11-20")
    expect(saoPauloDate(new Date("2026-11-21T03:00:00Z"))).toBe("2026-11-21")
  })

  it("ends a day at 23:59:59.999 local (UTC-3)", () => {
    expect(endOfDayInSaoPaulo("2026-11-24").toISOString()).toBe("2026-11-25T02:59:59.999Z")
  })

  it("adds calendar days from the local date", () => {
    const due = addDaysInSaoPaulo(new Date("2026-11-21T01:00:00Z"), 3) // still the 20th in São Paulo
    expect(due.date).toBe("2026-11-23")
    expect(due.endOfDay.toISOString()).toBe("2026-11-24T02:59:59.999Z")
  })

  it("always ends the due day after now and on the due date", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("2020-01-01"), max: new Date("2040-01-01"), noInvalidDate: true }),
        fc.integer({ min: 0, max: 60 }),
        (now, days) => {
          const due = addDaysInSaoPaulo(now, days)
          expect(due.endOfDay.getTime()).toBeGreaterThan(now.getTime())
          expect(saoPauloDate(due.endOfDay)).toBe(due.date)
          expect(saoPauloDate(new Date(due.endOfDay.getTime() + 1))).not.toBe(due.date)
        }
      )
    )
  })
})
