import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeItf, encodeItf, itfWidth } from "./itf.ts"

const BARCODE = "00193373700000001000500940144816060680935031"

describe("Interleaved 2 of 5", () => {
  it("round-trips random even-length digit strings", () => {
    const digits = fc
      .array(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 30 })
      .map((pairs) => pairs.map((n) => String(n).padStart(2, "0")).join(""))
    fc.assert(fc.property(digits, (s) => decodeItf(encodeItf(s)) === s))
  })

  it("lays out a 44-digit boleto barcode as FEBRABAN expects", () => {
    const modules = encodeItf(BARCODE)
    // start (4) + 22 pairs × 10 elements + stop (3)
    expect(modules).toHaveLength(227)
    // start 4 + 44 digits × (2 wide × 3 + 3 narrow) + stop 3+1+1
    expect(itfWidth(modules)).toBe(405)
    expect(modules.slice(0, 4)).toEqual([
      { bar: true, width: 1 },
      { bar: false, width: 1 },
      { bar: true, width: 1 },
      { bar: false, width: 1 }
    ])
    expect(modules.slice(-3)).toEqual([
      { bar: true, width: 3 },
      { bar: false, width: 1 },
      { bar: true, width: 1 }
    ])
    expect(modules.every((m, i) => m.bar === (i % 2 === 0))).toBe(true)
  })

  it("encodes the first pair with bars for one digit and spaces for the next", () => {
    // "12": 1 = WNNNW on the bars, 2 = NWNNW on the spaces
    expect(
      encodeItf("12")
        .slice(4, 14)
        .map((m) => m.width)
    ).toEqual([3, 1, 1, 3, 1, 1, 1, 1, 3, 3])
  })

  it("rejects odd-length, empty and non-digit input", () => {
    for (const bad of ["123", "", "12a4", "１２"]) expect(() => encodeItf(bad)).toThrow(RangeError)
  })

  it("refuses to decode a corrupted symbol", () => {
    const modules = encodeItf("1234")
    const noStop = modules.slice(0, -1)
    const flipped = modules.map((m, i) => (i === 5 ? ({ ...m, width: m.width === 1 ? 3 : 1 } as const) : m))
    expect(() => decodeItf(noStop)).toThrow(RangeError)
    expect(() => decodeItf(flipped)).toThrow(RangeError)
  })
})
