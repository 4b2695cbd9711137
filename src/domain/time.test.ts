import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { addCalendarDays } from "./calendar.ts"
import {
  addBusinessDaysInSaoPaulo,
  addDaysInSaoPaulo,
  bankTransferAt,
  withdrawalLeavesAt,
  endOfDayInSaoPaulo,
  isoInSaoPaulo,
  startOfDayInSaoPaulo,
  startOfNextDayInSaoPaulo,
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

describe("São Paulo days in the years of daylight saving (until 2019)", () => {
  const HOUR = 3_600_000
  const hoursOf = (date: string) =>
    (startOfNextDayInSaoPaulo(date).getTime() - startOfDayInSaoPaulo(date).getTime()) / HOUR

  it("2018-11-04, whose midnight the clocks skipped, starts at 01:00 −02:00 and has 23 hours", () => {
    const start = startOfDayInSaoPaulo("2018-11-04")
    expect(start.toISOString()).toBe("2018-11-04T03:00:00.000Z")
    expect(isoInSaoPaulo(start)).toBe("2018-11-04T01:00:00-02:00")
    expect(saoPauloDate(start)).toBe("2018-11-04")
    expect(isoInSaoPaulo(new Date(start.getTime() - 1000))).toBe("2018-11-03T23:59:59-03:00")
    expect(endOfDayInSaoPaulo("2018-11-04").toISOString()).toBe("2018-11-05T01:59:59.999Z")
    expect(hoursOf("2018-11-04")).toBe(23)
    // The day before ends where it starts, whole.
    expect(endOfDayInSaoPaulo("2018-11-03").getTime()).toBe(start.getTime() - 1)
    expect(hoursOf("2018-11-03")).toBe(24)
  })

  it("2019-02-16, whose 23:00–24:00 came twice, ends after the second one and has 25 hours", () => {
    expect(startOfDayInSaoPaulo("2019-02-16").toISOString()).toBe("2019-02-16T02:00:00.000Z")
    const end = endOfDayInSaoPaulo("2019-02-16")
    expect(end.toISOString()).toBe("2019-02-17T02:59:59.999Z")
    expect(isoInSaoPaulo(end)).toBe("2019-02-16T23:59:59-03:00")
    expect(isoInSaoPaulo(new Date(end.getTime() + 1))).toBe("2019-02-17T00:00:00-03:00")
    expect(hoursOf("2019-02-16")).toBe(25)
    expect(startOfDayInSaoPaulo("2019-02-17").toISOString()).toBe("2019-02-17T03:00:00.000Z")
  })

  it("a day of summer time starts at 00:00 −02:00; 1914-01-01, after the local mean time, at 00:06:28", () => {
    expect(startOfDayInSaoPaulo("2018-12-01").toISOString()).toBe("2018-12-01T02:00:00.000Z")
    expect(startOfNextDayInSaoPaulo("2018-12-01").toISOString()).toBe("2018-12-02T02:00:00.000Z")
    // The clocks went from 23:59:59 −03:06:28 of 1913-12-31 to 00:06:28 −03:00: a skipped midnight too.
    expect(startOfDayInSaoPaulo("1914-01-01").toISOString()).toBe("1914-01-01T03:06:28.000Z")
    expect(saoPauloDate(new Date("1914-01-01T03:06:27.999Z"))).toBe("1913-12-31")
  })

  it(
    "every day from 1900 to 2040 starts on its date, right after the day before, and lasts 23 to 25 hours",
    { timeout: 60_000 },
    () => {
      const wrong: Array<string> = []
      for (let date = "1900-01-01"; date <= "2040-12-31"; date = addCalendarDays(date, 1)) {
        const start = startOfDayInSaoPaulo(date)
        const next = startOfNextDayInSaoPaulo(date)
        const hours = (next.getTime() - start.getTime()) / HOUR
        if (
          saoPauloDate(start) !== date ||
          saoPauloDate(new Date(start.getTime() - 1)) !== addCalendarDays(date, -1) ||
          saoPauloDate(new Date(next.getTime() - 1)) !== date ||
          endOfDayInSaoPaulo(date).getTime() !== next.getTime() - 1 ||
          !(hours >= 23 && hours <= 25)
        )
          wrong.push(date)
      }
      expect(wrong).toEqual([])
    }
  )

  it("an instant lies between the start of its São Paulo date and the start of the next", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("1900-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }), (at) => {
        const date = saoPauloDate(at)
        expect(startOfDayInSaoPaulo(date).getTime()).toBeLessThanOrEqual(at.getTime())
        expect(startOfNextDayInSaoPaulo(date).getTime()).toBeGreaterThan(at.getTime())
      })
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
