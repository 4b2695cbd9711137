import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { canonicalJson } from "./canonicalJson.ts"

const shuffleKeys = (value: unknown, seed: number): unknown => {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, seed))
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
    const rotated = entries
      .slice(seed % Math.max(1, entries.length))
      .concat(entries.slice(0, seed % Math.max(1, entries.length)))
    return Object.fromEntries(rotated.reverse().map(([k, v]) => [k, shuffleKeys(v, seed + 1)]))
  }
  return value
}

describe("canonicalJson", () => {
  it("ignores key order and formatting", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
        expect(canonicalJson(shuffleKeys(value, seed))).toBe(canonicalJson(value))
        expect(canonicalJson(JSON.parse(JSON.stringify(value, null, 2)))).toBe(canonicalJson(value))
      })
    )
  })

  it("is valid JSON that means the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)))
      })
    )
  })

  it("tells different values apart", () => {
    expect(canonicalJson({ amount: 100 })).not.toBe(canonicalJson({ amount: 101 }))
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }))
  })
})
