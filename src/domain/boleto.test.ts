import { describe, it, expect } from "vitest"
import fc from "fast-check"
import {
  barcodeFromDigitableLine,
  buildBarcode,
  dateFromFactor,
  digitableLineFromBarcode,
  dueDateFactor,
  formatDigitableLine,
  isValidBarcode,
  isValidDigitableLine,
  mod10,
  mod11Barcode
} from "./boleto.ts"

// Published digitable lines (real slips quoted in public code), each of which
// our mod-10 / mod-11 independently confirm:
//  - Banco do Brasil "00190.00009 00000.067439 29886.639177 1 82730000001500"
//    (Robot Framework test in filipesalvadorsilveira/testesrobotframework).
//    By hand: field 1 "001900000", weights 2,1,… from the right → 0+0+0+0+0+9+2+0+0 = 11,
//    DV = (10 − 1) % 10 = 9 ✓. Barcode DV over the 43 digits
//    0019 8273 0000001500 0000000000067432988663917 with weights 2..9 from the right:
//    sum = 671 = 61 × 11, remainder 0 → 11 − 0 = 11 → 1 ✓ (exercises the "0/10/11 → 1" rule).
//    Factor 8273 → 2020-06-01, amount R$ 15,00.
//  - Itaú "34191.67006 04635.640644 60910.580004 7 39290000307014" (README of a PHP
//    "Boleto Coding" library): factor 3929, R$ 3.070,14.
//  - Banco do Brasil "00190.50095 40144.816069 06809.350314 3 37370000000100" (tests of
//    the Clojure brazilian-utils boleto module): factor 3737, R$ 1,00.
const VECTORS = [
  { line: "00190000090000006743929886639177182730000001500", barcode: "00191827300000015000000000000067432988663917" },
  { line: "34191670060463564064460910580004739290000307014", barcode: "34197392900003070141670004635640646091058000" },
  { line: "00190500954014481606906809350314337370000000100", barcode: "00193373700000001000500940144816060680935031" }
]

describe("vectors", () => {
  it.each(VECTORS)("$line ⇄ $barcode", ({ line, barcode }) => {
    expect(isValidDigitableLine(line)).toBe(true)
    expect(isValidBarcode(barcode)).toBe(true)
    expect(barcodeFromDigitableLine(line)).toBe(barcode)
    expect(digitableLineFromBarcode(barcode)).toBe(line)
  })
  it("accepts the formatted line and formats it", () => {
    expect(formatDigitableLine(VECTORS[0]!.line)).toBe("00190.00009 00000.067439 29886.639177 1 82730000001500")
    expect(barcodeFromDigitableLine("00190.00009 00000.067439 29886.639177 1 82730000001500")).toBe(VECTORS[0]!.barcode)
    expect(() => formatDigitableLine("123")).toThrow(RangeError)
  })
  it("rebuilds the BB barcode from its parts", () => {
    expect(
      buildBarcode({
        bankCode: "001",
        dueDate: "2020-06-01",
        amountCents: 1500,
        freeField: "0000000000067432988663917"
      })
    ).toBe(VECTORS[0]!.barcode)
  })
  it("mod10 / mod11 basics", () => {
    expect(mod10("001900000")).toBe(9)
    expect(mod11Barcode("0019827300000015000000000000067432988663917")).toBe(1)
  })
  it("rejects an arrecadação (8…) barcode, bad lengths and bad DVs", () => {
    expect(isValidBarcode("8".padEnd(44, "0"))).toBe(false)
    expect(isValidBarcode(VECTORS[0]!.barcode.slice(1))).toBe(false)
    expect(isValidDigitableLine(VECTORS[0]!.line.replace(/^00190/, "00191"))).toBe(false)
  })
})

describe("due-date factor", () => {
  it.each([
    ["1997-10-08", 1],
    ["2000-07-03", 1000],
    ["2020-06-01", 8273],
    ["2025-02-21", 9999],
    ["2025-02-22", 1000],
    ["2025-02-23", 1001],
    ["2049-11-13", 1030]
  ] as const)("%s → %i", (date, factor) => expect(dueDateFactor(date)).toBe(factor))
  it("rejects impossible or too-early dates", () => {
    for (const d of ["2025-02-30", "2025-2-1", "1997-10-07", "x"]) expect(() => dueDateFactor(d)).toThrow(RangeError)
  })
  it("dateFromFactor picks the nearest cycle", () => {
    expect(dateFromFactor(1000, new Date("2001-01-01"))).toBe("2000-07-03")
    expect(dateFromFactor(1000, new Date("2025-03-01"))).toBe("2025-02-22")
    expect(dateFromFactor(9999, new Date("2025-03-01"))).toBe("2025-02-21")
    expect(dateFromFactor(0, new Date("2025-03-01"))).toBeNull()
  })
  it("dateFromFactor inverts dueDateFactor around the date", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40_000 }), fc.integer({ min: -4000, max: 4000 }), (days, skew) => {
        const t = Date.UTC(1997, 9, 7) + days * 86_400_000
        const date = new Date(t).toISOString().slice(0, 10)
        return dateFromFactor(dueDateFactor(date), new Date(t + skew * 86_400_000)) === date
      })
    )
  })
})

const digitStr = (n: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: n, maxLength: n })
const barcodes = fc
  .record({
    bankCode: digitStr(3).filter((b) => !b.startsWith("8")),
    days: fc.integer({ min: 1, max: 30_000 }),
    amountCents: fc.integer({ min: 0, max: 9_999_999_999 }),
    freeField: digitStr(25)
  })
  .map(({ days, ...r }) =>
    buildBarcode({ ...r, dueDate: new Date(Date.UTC(1997, 9, 7) + days * 86_400_000).toISOString().slice(0, 10) })
  )
const change = (s: string, i: number, k: number) => s.slice(0, i) + String((Number(s[i]) + k) % 10) + s.slice(i + 1)

describe("properties", () => {
  it("barcode → line → barcode round trip; both validate", () => {
    fc.assert(
      fc.property(barcodes, (b) => {
        const line = digitableLineFromBarcode(b)
        return (
          isValidBarcode(b) && isValidDigitableLine(line) && barcodeFromDigitableLine(line) === b && line.length === 47
        )
      })
    )
  })
  // The barcode's mod 11 maps remainders 0, 1 and 10 all to DV 1, so a single-digit
  // change can slip through only when the DV is 1; with any other DV it is caught.
  it("single-digit changes to a barcode are detected unless its DV is 1", () => {
    fc.assert(
      fc.property(
        barcodes,
        fc.nat(43),
        fc.integer({ min: 1, max: 9 }),
        (b, i, k) => !isValidBarcode(change(b, i, k)) || b[4] === "1"
      ),
      { numRuns: 2000 }
    )
  })
  // Fields 1–3 carry a mod-10 DV (catches every single-digit change); field 4 is
  // the barcode DV itself; field 5 (factor + amount) is covered only by the mod 11.
  it("single-digit changes to a line are detected (field 5 only when the DV is not 1)", () => {
    fc.assert(
      fc.property(barcodes, fc.nat(46), fc.integer({ min: 1, max: 9 }), (b, i, k) => {
        const line = digitableLineFromBarcode(b)
        return !isValidDigitableLine(change(line, i, k)) || (i >= 33 && line[32] === "1")
      }),
      { numRuns: 2000 }
    )
  })
  it("validators are total", () => {
    fc.assert(
      fc.property(
        fc.string(),
        (s) => typeof isValidBarcode(s) === "boolean" && typeof isValidDigitableLine(s) === "boolean"
      )
    )
  })
})
