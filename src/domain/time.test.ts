import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  addBusinessDaysInSaoPaulo,
  addDaysInSaoPaulo,
  bankTransferAt,
  withdrawalLeavesAt,
  endOfDayInSaoPaulo,
  startOfDayInSaoPaulo,
  saoPauloDate
} from "./time.ts"

describe("São Paulo calendar", () => {
  it("knows the local date across the UTC midnight", () => {
    expect(saoPauloDate(new Date("2026-11-21T02:59:59Z"))).toBe("2026-11-20")
    expect(saoPauloDate(new Date("2026-11-21T03:00:00Z"))).toBe("2026-11-21")
  })

  it("ends a day at 23:59:59.999 local (UTC-3)", () => {
    expect(endOfDayInSaoPaulo("2026-11-24").toISOString()).toBe("2026-11-25T02:59:59.999Z")
    // Before 1914 São Paulo kept its local mean time, -03:06:28: an offset with seconds, still a real instant.
    expect(endOfDayInSaoPaulo("1900-01-01").toISOString()).toBe("1900-01-02T03:06:27.999Z")
    expect(startOfDayInSaoPaulo("1913-12-31").toISOString()).toBe("1913-12-31T03:06:28.000Z")
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

describe("business days in São Paulo (docs/calendar.md)", () => {
  it("a boleto's default due date is BOLETO_DUE_DAYS business days away, around Carnival 2027", () => {
    // Thursday 2027-02-04, 22:00 in São Paulo (01:00Z on the 5th).
    const thursday = new Date("2027-02-05T01:00:00Z")
    expect(addBusinessDaysInSaoPaulo(thursday, 1).date).toBe("2027-02-05")
    expect(addBusinessDaysInSaoPaulo(thursday, 2).date).toBe("2027-02-10")
    expect(addBusinessDaysInSaoPaulo(thursday, 3)).toEqual({
      date: "2027-02-11",
      endOfDay: new Date("2027-02-12T02:59:59.999Z")
    })
    // Across Good Friday and the year's end.
    expect(addBusinessDaysInSaoPaulo(new Date("2027-03-25T15:00:00Z"), 1).date).toBe("2027-03-29")
    // 31 December is closed (FEBRABAN, docs/calendar.md): from Wednesday 2026-12-30, the 1st business day is
    // Monday 2027-01-04 and the 2nd the 5th.
    expect(addBusinessDaysInSaoPaulo(new Date("2026-12-30T15:00:00Z"), 1).date).toBe("2027-01-04")
    expect(addBusinessDaysInSaoPaulo(new Date("2026-12-30T15:00:00Z"), 2).date).toBe("2027-01-05")
  })

  it("a bank transfer leaves at once on a business day, at 00:00 of the next one otherwise", () => {
    const wednesday = new Date("2027-02-10T13:00:00Z")
    expect(bankTransferAt(wednesday)).toBe(wednesday)
    // Saturday before Carnival, and Carnival Monday: Ash Wednesday 00:00 São Paulo.
    expect(bankTransferAt(new Date("2027-02-06T13:00:00Z")).toISOString()).toBe("2027-02-10T03:00:00.000Z")
    expect(bankTransferAt(new Date("2027-02-08T23:00:00Z")).toISOString()).toBe("2027-02-10T03:00:00.000Z")
    // Good Friday → Monday; 1 January 2027 (a Friday) → Monday the 4th.
    expect(bankTransferAt(new Date("2027-03-26T12:00:00Z")).toISOString()).toBe("2027-03-29T03:00:00.000Z")
    expect(bankTransferAt(new Date("2027-01-01T12:00:00Z")).toISOString()).toBe("2027-01-04T03:00:00.000Z")
    // 31 December has no bank service and no compensação, so no TED (FEBRABAN, docs/calendar.md): Monday the
    // 4th, after New Year's Day and the weekend. 24 December is a business day: it leaves at once.
    expect(bankTransferAt(new Date("2026-12-31T12:00:00Z")).toISOString()).toBe("2027-01-04T03:00:00.000Z")
    const christmasEve = new Date("2026-12-24T12:00:00Z")
    expect(bankTransferAt(christmasEve)).toBe(christmasEve)
  })

  it("a withdrawal leaves after its delay, counted from when it can leave, and never on a closed day", () => {
    // A Tuesday: at once plus the delay.
    expect(withdrawalLeavesAt(new Date("2026-12-01T13:00:00Z"), 5).toISOString()).toBe("2026-12-01T13:00:05.000Z")
    // A Saturday: Monday 00:00 São Paulo plus the delay.
    expect(withdrawalLeavesAt(new Date("2026-12-05T13:00:00Z"), 5).toISOString()).toBe("2026-12-07T03:00:05.000Z")
    // Friday 23:59:58 São Paulo: the delay runs into Saturday, so Monday 00:00.
    expect(withdrawalLeavesAt(new Date("2026-12-05T02:59:58Z"), 5).toISOString()).toBe("2026-12-07T03:00:00.000Z")
    // The Friday before Carnival, as late: Ash Wednesday 00:00.
    expect(withdrawalLeavesAt(new Date("2027-02-06T02:59:58Z"), 5).toISOString()).toBe("2027-02-10T03:00:00.000Z")
    // Wednesday 30 December, as late: the delay runs into the 31st, closed (docs/calendar.md), so 4 January.
    expect(withdrawalLeavesAt(new Date("2026-12-31T02:59:58Z"), 5).toISOString()).toBe("2027-01-04T03:00:00.000Z")
  })
})
