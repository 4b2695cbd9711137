import { describe, it, expect } from "vitest"
import fc from "fast-check"
import {
  UFS,
  isValidBirthdate,
  isValidBrazilianMobile,
  isValidBrazilianPhone,
  isValidCep,
  isValidUf,
  normalisePhoneDigits
} from "./address.ts"

describe("CEP and UF", () => {
  it("CEP", () => {
    expect(isValidCep("01310100")).toBe(true) // Av. Paulista, São Paulo
    for (const c of ["01310-100", "0131010", "013101000", "0131010a", ""]) expect(isValidCep(c)).toBe(false)
  })
  it("UF list has the 27 units", () => {
    expect(UFS.length).toBe(27)
    expect(new Set(UFS).size).toBe(27)
    expect(isValidUf("SP")).toBe(true)
    expect(isValidUf("DF")).toBe(true)
    for (const u of ["sp", "XX", "S", "SPP", ""]) expect(isValidUf(u)).toBe(false)
  })
  it("isValidUf accepts exactly the list", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3 }), (s) => isValidUf(s) === (UFS as ReadonlyArray<string>).includes(s))
    )
  })
})

describe("phones", () => {
  it.each([
    ["(11) 91234-5678", "11912345678", true],
    ["(11) 3123-4567", "1131234567", false],
    ["11912345678", "11912345678", true],
    ["+55 11 91234-5678", "11912345678", true],
    ["55 11 91234-5678", "11912345678", true],
    ["5532345678", "5532345678", false], // landline in DDD 55 (Santa Maria/RS), not a country code
    ["+55 (55) 99123-4567", "55991234567", true]
  ] as const)("%s → %s", (input, digits, mobile) => {
    expect(normalisePhoneDigits(input)).toBe(digits)
    expect(isValidBrazilianPhone(input)).toBe(true)
    expect(isValidBrazilianMobile(input)).toBe(mobile)
  })
  it.each([
    "(20) 91234-5678", // DDD 20 does not exist
    "(10) 3123-4567",
    "(11) 81234-5678", // 11 digits without the 9
    "(11) 1234-5678", // landlines start with 2–5
    "+1 11 91234-5678",
    "119123456",
    "+55 11 91234-56789",
    "11.91234.5678",
    ""
  ])("rejects %s", (s) => expect(isValidBrazilianPhone(s)).toBe(false))

  it("formatted and bare forms agree", () => {
    const ddd = fc.constantFrom(11, 21, 31, 47, 55, 61, 71, 85, 99).map(String)
    fc.assert(
      fc.property(ddd, fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 8, maxLength: 8 }), (d, n) => {
        const bare = `${d}9${n}`
        const fmt = `+55 (${d}) 9${n.slice(0, 4)}-${n.slice(4)}`
        return normalisePhoneDigits(fmt) === bare && normalisePhoneDigits(bare) === bare && isValidBrazilianMobile(fmt)
      })
    )
  })
  it("normalised numbers are 10–11 digits with a listed DDD; mobile ⇒ phone", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."0123456789 ()-+5"), maxLength: 20 }), (s) => {
        const d = normalisePhoneDigits(s)
        if (isValidBrazilianMobile(s) && !isValidBrazilianPhone(s)) return false
        return d === null || (/^\d{10,11}$/.test(d) && normalisePhoneDigits(d) === d)
      })
    )
  })
})

describe("birthdate", () => {
  const now = new Date("2025-06-15T12:00:00Z")
  it("vectors", () => {
    for (const s of ["1900-01-01", "2000-02-29", "2025-06-15", "1985-12-31"])
      expect(isValidBirthdate(s, now)).toBe(true)
    for (const s of [
      "1899-12-31",
      "2025-06-16",
      "2023-02-29",
      "1900-02-29",
      "2024-13-01",
      "2024-00-10",
      "2024-1-01",
      "15/06/2000",
      ""
    ])
      expect(isValidBirthdate(s, now)).toBe(false)
  })
  it("today is São Paulo's: from 21:00 there, UTC's tomorrow is still a future birthdate", () => {
    const late = new Date("2026-11-30T22:00:00-03:00") // 01:00Z on 1 December
    expect(isValidBirthdate("2026-11-30", late)).toBe(true)
    expect(isValidBirthdate("2026-12-01", late)).toBe(false)
    expect(isValidBirthdate("2026-12-01", new Date("2026-12-01T00:00:00-03:00"))).toBe(true)
  })
  it("accepts exactly the real dates in [1900-01-01, today]", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("1850-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }), (d) => {
        const s = d.toISOString().slice(0, 10)
        return isValidBirthdate(s, now) === (s >= "1900-01-01" && s <= "2025-06-15")
      })
    )
  })
})
