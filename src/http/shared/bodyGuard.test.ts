import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { bodyProblem, jsonDepth, MAX_DEPTH } from "./bodyGuard.ts"

describe("bodyGuard", () => {
  it("measures depth like a parser would", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const depth = (v: unknown): number =>
          v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0
        expect(jsonDepth(JSON.stringify(value))).toBe(depth(value))
      })
    )
  })

  it("ignores brackets inside strings", () => {
    expect(jsonDepth(JSON.stringify({ a: '[[[{{{"\\' }))).toBe(1)
  })

  it("refuses bodies nested too deeply", () => {
    const deep = "[".repeat(MAX_DEPTH + 1) + "]".repeat(MAX_DEPTH + 1)
    expect(bodyProblem(deep)?.field).toBe("body")
    expect(bodyProblem("[".repeat(5000) + "]".repeat(5000))?.message).toContain("nested")
    expect(bodyProblem("[".repeat(MAX_DEPTH) + "]".repeat(MAX_DEPTH))).toBeUndefined()
  })

  it("names the field holding a NUL character", () => {
    expect(bodyProblem(JSON.stringify({ name: "a\u0000b" }))?.field).toBe("name")
    expect(bodyProblem(JSON.stringify({ buyerAddress: { city: "x\u0000" } }))?.field).toBe("buyerAddress.city")
    expect(bodyProblem(JSON.stringify({ name: "plain \\u0000 text" }))).toBeUndefined()
  })
})
