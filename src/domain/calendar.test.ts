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

describe("the banking calendar", () => {
  it("agrees with date-holidays (BR, public and bank) on every day of 2000–2100", () => {
    const oracle = new Holidays("BR")
    const closed = new Set<string>()
    for (let year = 2000; year <= 2100; year++) {
      for (const h of oracle.getHolidays(year)) {
        if (h.type === "public" || h.type === "bank") closed.add(h.date.slice(0, 10))
      }
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
    expect(addBusinessDays("2026-12-24", 1)).toBe("2026-12-28")
    expect(addBusinessDays("2027-02-08", 0)).toBe("2027-02-08")
  })
})
