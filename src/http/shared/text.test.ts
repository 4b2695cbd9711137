import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { urlTextProblem } from "./text.ts"

// The URL rule's cheap case (a URL with nothing to decode) must refuse exactly what the full reading does.
describe("urlTextProblem", () => {
  const plain = fc.string({
    unit: fc
      .integer({ min: 1, max: 0x7f })
      .filter((c) => c !== 0x25)
      .map((c) => String.fromCharCode(c))
  })

  it("takes every URL of plain ASCII (no escape, no NUL)", () => {
    fc.assert(
      fc.property(plain, (tail) => urlTextProblem(`/api/customers/${tail}`, "/api/customers/:id") === undefined)
    )
  })

  it("still refuses what needs decoding or holds a NUL, wherever it sits in a plain URL", () => {
    const hostile = fc.constantFrom("%00", "%ED%A0%80", "%FF", "\u0000", "é", "\u00ff")
    fc.assert(
      fc.property(plain, hostile, plain, (before, bad, after) => {
        const url = `/api/customers/${before.replace(/[/?&=]/g, "")}${bad}${after.replace(/[/?&=]/g, "")}`
        return urlTextProblem(url, "/api/customers/:id")?.field === "id"
      })
    )
    expect(urlTextProblem("/api/customers?email=a%00b", "/api/customers")).toMatchObject({ field: "email" })
    expect(urlTextProblem("/api/customers?x=%41%42", "/api/customers")).toBeUndefined()
  })
})
