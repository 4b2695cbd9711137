import { describe, it, expect } from "vitest"
import fc from "fast-check"
import { cardExpired, detectBrand, isValidPanFormat, last4, luhnCheckDigit, luhnValid, parseExpiry } from "./card.ts"

const digitStr = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: max })

describe("vectors", () => {
  // Public test cards: Stripe (4242…, 4000…0002, 5555…4444, 2223 0031 2200 3222),
  // the classic Visa test PAN 4111…1111, and Cielo's sandbox Elo card 6362 9700 0045 7013.
  it.each([
    ["4242424242424242", "Visa"],
    ["4111111111111111", "Visa"],
    ["4000000000000002", "Visa"],
    ["5555555555554444", "Mastercard"],
    ["2223003122003222", "Mastercard"],
    ["6362970000457013", "Elo"]
  ] as const)("%s is a Luhn-valid 16-digit %s", (pan, brand) => {
    expect(luhnValid(pan)).toBe(true)
    expect(isValidPanFormat(pan)).toBe(true)
    expect(detectBrand(pan)).toBe(brand)
    expect(luhnCheckDigit(pan.slice(0, 15))).toBe(pan[15])
  })
  it("rejects bad Luhn and bad formats", () => {
    expect(luhnValid("4242424242424241")).toBe(false)
    expect(luhnValid("4242 4242 4242 4242")).toBe(false)
    expect(isValidPanFormat("424242424242424")).toBe(false)
    expect(isValidPanFormat("42424242424242424")).toBe(false)
  })
})

describe("detectBrand", () => {
  it.each([
    ["4011780000000000", "Elo"],
    ["4011790000000000", "Elo"],
    ["4312740000000000", "Elo"],
    ["4389350000000000", "Elo"],
    ["4514160000000000", "Elo"],
    ["4576320000000000", "Elo"],
    ["5041750000000000", "Elo"],
    ["5066990000000000", "Elo"],
    ["5067780000000000", "Elo"],
    ["5090000000000000", "Elo"],
    ["5099990000000000", "Elo"],
    ["6277800000000000", "Elo"],
    ["6500310000000000", "Elo"],
    ["6550580000000000", "Elo"],
    ["4011770000000000", "Visa"],
    ["4576330000000000", "Visa"],
    ["5100000000000000", "Mastercard"],
    ["5599990000000000", "Mastercard"],
    ["2221000000000000", "Mastercard"],
    ["2720990000000000", "Mastercard"],
    ["5067790000000000", null],
    ["6500340000000000", null],
    ["6550200000000000", null],
    ["2220990000000000", null],
    ["2721000000000000", null],
    ["5000000000000000", null],
    ["3782822463100050", null],
    ["", null],
    ["abcd", null]
  ] as const)("%s → %s", (pan, brand) => expect(detectBrand(pan)).toBe(brand))

  it("is total (never throws) on any string", () => {
    fc.assert(fc.property(fc.string(), (s) => [null, "Visa", "Mastercard", "Elo"].includes(detectBrand(s))))
  })
})

describe("Luhn properties", () => {
  it("luhnCheckDigit makes any prefix Luhn-valid", () => {
    fc.assert(fc.property(digitStr(1, 30), (p) => luhnValid(p + luhnCheckDigit(p))))
  })
  it("any single-digit change breaks Luhn", () => {
    fc.assert(
      fc.property(digitStr(1, 18), fc.nat(), fc.integer({ min: 1, max: 9 }), (p, j, k) => {
        const pan = p + luhnCheckDigit(p)
        const i = j % pan.length
        const changed = pan.slice(0, i) + String((Number(pan[i]) + k) % 10) + pan.slice(i + 1)
        return !luhnValid(changed)
      })
    )
  })
})

describe("expiry", () => {
  it("a card is valid through the last instant of its month in São Paulo (docs/calendar.md)", () => {
    expect(cardExpired(2, 24, new Date("2024-02-29T23:59:59.999-03:00"))).toBe(false)
    expect(cardExpired(2, 24, new Date("2024-03-01T00:00:00.000-03:00"))).toBe(true)
    // 00:00 UTC of 1 March is 21:00 of 29 February in São Paulo: still the card's month.
    expect(cardExpired(2, 24, new Date("2024-03-01T00:00:00.000Z"))).toBe(false)
    expect(cardExpired(11, 26, new Date("2026-11-30T22:00:00-03:00"))).toBe(false)
    expect(cardExpired(12, 30, new Date("2030-12-31T23:59:59.999-03:00"))).toBe(false)
    expect(cardExpired(12, 30, new Date("2031-01-01T00:00:00.000-03:00"))).toBe(true)
    // In summer time (until 2019) the month ended at 24:00 −02:00.
    expect(cardExpired(11, 18, new Date("2018-11-30T23:59:59.999-02:00"))).toBe(false)
    expect(cardExpired(11, 18, new Date("2018-12-01T00:00:00.000-02:00"))).toBe(true)
    expect(cardExpired(13, 30, new Date("2020-01-01T00:00:00Z"))).toBe(true)
    expect(cardExpired(0, 30, new Date("2020-01-01T00:00:00Z"))).toBe(true)
  })
  it("is monotonic: once expired, stays expired", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.nat(99),
        fc.date({ min: new Date("1990-01-01"), max: new Date("2200-01-01"), noInvalidDate: true }),
        fc.nat(),
        (m, y, d, extra) => !cardExpired(m, y, d) || cardExpired(m, y, new Date(d.getTime() + extra))
      )
    )
  })
  it("parseExpiry", () => {
    expect(parseExpiry("01", "30")).toEqual({ month: 1, year2: 30 })
    expect(parseExpiry("12", "00")).toEqual({ month: 12, year2: 0 })
    for (const [mm, yy] of [
      ["00", "30"],
      ["13", "30"],
      ["1", "30"],
      ["01", "2030"],
      ["ab", "30"],
      ["01", "3a"]
    ] as const)
      expect(parseExpiry(mm, yy)).toBeNull()
  })
  it("parseExpiry accepts exactly the 2-digit months 01–12", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (mm, yy) => {
        const r = parseExpiry(mm, yy)
        const ok = /^(0[1-9]|1[0-2])$/.test(mm) && /^\d\d$/.test(yy)
        return ok ? r !== null && r.month === Number(mm) && r.year2 === Number(yy) : r === null
      })
    )
  })
  it("last4", () => expect(last4("4242424242424242")).toBe("4242"))
})
