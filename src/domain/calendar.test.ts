import Holidays from "date-holidays"
import { describe, expect, it } from "vitest"
import {
  addBusinessDays,
  addCalendarDays,
  easter,
  holidayName,
  holidays,
  isBusinessDay,
  onOrNextBusinessDay
} from "./calendar.ts"
import { settlementAt } from "./ledger.ts"
import { saoPauloDate, startOfDayInSaoPaulo } from "./time.ts"

describe("the banking calendar", () => {
  it("agrees with date-holidays (BR, public and bank) on every day of 2000–2100", () => {
    const oracle = new Holidays("BR")
    const closed = new Set<string>()
    for (let year = 2000; year <= 2100; year++) {
      for (const h of oracle.getHolidays(year)) {
        if (h.type === "public" || h.type === "bank") closed.add(h.date.slice(0, 10))
      }
      // date-holidays calls 31 December "optional" (closed from 14:00); FEBRABAN closes the banks and the
      // compensação that whole day, or the Friday before when it falls on a weekend (docs/calendar.md).
      const last = new Date(Date.UTC(year, 11, 31))
      while (last.getUTCDay() === 0 || last.getUTCDay() === 6) last.setUTCDate(last.getUTCDate() - 1)
      closed.add(last.toISOString().slice(0, 10))
    }
    const differences: string[] = []
    let days = 0
    for (let d = "2000-01-01"; d <= "2100-12-31"; d = addCalendarDays(d, 1)) {
      days++
      const weekday = new Date(`${d}T00:00:00Z`).getUTCDay()
      const expected = weekday !== 0 && weekday !== 6 && !closed.has(d)
      if (isBusinessDay(d) !== expected) differences.push(d)
    }
    expect(days).toBe(36_890)
    expect(differences).toEqual([])
    // And every holiday we name falls on a day the oracle closes (weekends included).
    const ours = Array.from({ length: 101 }, (_, i) => holidays(2000 + i)).flat()
    expect(ours.filter((h) => !closed.has(h.date)).map((h) => h.date)).toEqual([])
  })

  it("computes Easter (known Sundays)", () => {
    expect(easter(2000)).toEqual([4, 23])
    expect(easter(2024)).toEqual([3, 31])
    expect(easter(2027)).toEqual([3, 28])
    expect(easter(2038)).toEqual([4, 25])
    expect(easter(2285)).toEqual([3, 22])
  })

  it("closes banks on Carnival 2027 (8–9 February), Good Friday and Corpus Christi", () => {
    expect(holidayName("2027-02-08")).toBe("Carnaval (segunda-feira)")
    expect(holidayName("2027-02-09")).toBe("Carnaval (terça-feira)")
    expect(isBusinessDay("2027-02-05")).toBe(true)
    expect(isBusinessDay("2027-02-10")).toBe(true) // Ash Wednesday: banks open at noon, a business day
    expect(holidayName("2027-03-26")).toBe("Sexta-feira Santa")
    expect(holidayName("2027-05-27")).toBe("Corpus Christi")
  })

  it("makes Consciência Negra national from 2024 only (Lei 14.759 of 2023-12-21)", () => {
    expect(isBusinessDay("2023-11-20")).toBe(true)
    expect(holidayName("2024-11-20")).toBe("Dia Nacional de Zumbi e da Consciência Negra")
    expect(isBusinessDay("2026-11-20")).toBe(false)
  })

  // FEBRABAN, every year (e.g. its notices of December 2023 and 2024): on 31 December "não há expediente
  // bancário e as compensações bancárias não serão efetivadas"; what falls due that day "poderá ser pago, sem
  // acréscimo, no dia útil seguinte". 24 December stays a business day: banks open in the morning and the
  // compensação runs (docs/calendar.md).
  it("closes banks on the year's last weekday (31 December, or the Friday before), not on 24 December", () => {
    expect(isBusinessDay("2026-12-31")).toBe(false) // a Thursday
    expect(onOrNextBusinessDay("2026-12-31")).toBe("2027-01-04") // then New Year's Day and a weekend
    expect(isBusinessDay("2026-12-30")).toBe(true)
    expect(isBusinessDay("2026-12-24")).toBe(true)
    // 31/12/2023 was a Sunday: the banks closed on Friday 29/12/2023.
    expect(isBusinessDay("2023-12-29")).toBe(false)
    expect(onOrNextBusinessDay("2023-12-29")).toBe("2024-01-02")
    expect(isBusinessDay("2023-12-28")).toBe(true)
    // 31/12/2022 was a Saturday: Friday 30/12/2022.
    expect(isBusinessDay("2022-12-30")).toBe(false)
    expect(isBusinessDay("2022-12-29")).toBe(true)
    expect(holidays(2023).map((h) => h.date)).toContain("2023-12-29")
    expect(holidays(2023).map((h) => h.date)).not.toContain("2023-12-31")
  })

  it("moves to the next business day, across Carnival, Easter and the year's end", () => {
    expect(onOrNextBusinessDay("2027-02-06")).toBe("2027-02-10") // Saturday before Carnival
    expect(onOrNextBusinessDay("2027-02-08")).toBe("2027-02-10")
    expect(onOrNextBusinessDay("2027-02-10")).toBe("2027-02-10")
    expect(onOrNextBusinessDay("2027-03-26")).toBe("2027-03-29") // Good Friday → Monday
    expect(onOrNextBusinessDay("2026-12-25")).toBe("2026-12-28")
    expect(onOrNextBusinessDay("2027-01-01")).toBe("2027-01-04")
  })

  it("adds business days, skipping weekends and holidays", () => {
    expect(addBusinessDays("2027-02-05", 1)).toBe("2027-02-10")
    expect(addBusinessDays("2027-02-04", 3)).toBe("2027-02-11")
    expect(addBusinessDays("2027-02-08", 1)).toBe("2027-02-10") // from a holiday: the 1st business day after it
    expect(addBusinessDays("2027-03-25", 1)).toBe("2027-03-29")
    expect(addBusinessDays("2026-12-31", 1)).toBe("2027-01-04")
    expect(addBusinessDays("2026-12-30", 1)).toBe("2027-01-04") // 31 December closed
    expect(addBusinessDays("2026-12-24", 1)).toBe("2026-12-28")
    expect(addBusinessDays("2027-02-08", 0)).toBe("2027-02-08")
  })
})

// What counts business days moves with the calendar (docs/calendar.md "Where it is used"); the due date's grace
// and the fine are in chargeTerms.test.ts, a withdrawal's TED day in time.test.ts.
describe("the year's end, where business days are counted", () => {
  it("a boleto paid 30/12 with SETTLEMENT_DAYS_BILLET=1 is credited on 04/01, not on the closed 31/12", () => {
    const paidAt = new Date("2026-12-30T15:00:00-03:00")
    expect(settlementAt("BOLETO", paidAt, 1, 1).toISOString()).toBe(startOfDayInSaoPaulo("2027-01-04").toISOString())
    // The one due 2026-12-31 and paid, without charges, on 2027-01-04: D+1 is the 5th.
    expect(saoPauloDate(settlementAt("BOLETO", new Date("2027-01-04T15:00:00-03:00"), 1, 1))).toBe("2027-01-05")
  })

  it("a card installment falling on 31/12 is paid on the next business day", () => {
    // 2026-12-01 + 30 calendar days = Thursday 2026-12-31: closed, then New Year's Day and a weekend.
    expect(saoPauloDate(settlementAt("CARD", new Date("2026-12-01T15:00:00-03:00"), 30, 1))).toBe("2027-01-04")
  })
})
