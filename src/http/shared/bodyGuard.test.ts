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

describe("text PostgreSQL cannot store", () => {
  it("names the field holding a lone surrogate, as the service names fields", () => {
    const field = (value: unknown) => bodyProblem(JSON.stringify(value))?.field
    expect(field({ customer: { name: "a\ud800b" } })).toBe("customer.name")
    expect(field({ products: [{ sku: "ok" }, { sku: "\udc00" }] })).toBe("products[1].sku")
    expect(field({ metadata: { note: "\udc00\ud800" } })).toBe("metadata.note")
    expect(field({ metadata: { ["k\ud800"]: "v" } })).toBe("metadata.k\\ud800")
    expect(field({ name: "x\udbff" })).toBe("name")
    expect(field({ products: [{ name: "a\u0000" }] })).toBe("products[0].name")
  })

  it("accepts every well-formed string, astral characters included", () => {
    expect(bodyProblem(JSON.stringify({ name: "😀 ção 漢字 \ud83d\ude00" }))).toBeUndefined()
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value)
        // fast-check's strings are well-formed unless they hold NUL. A `__proto__` key is refused on
        // purpose (see the test below and test/api.unknown-fields.test.ts), whatever its text.
        const proto = JSON.stringify(value, (_key, v: unknown) =>
          v !== null && typeof v === "object" && Object.keys(v).includes("__proto__") ? "__proto__ key" : v
        ).includes("__proto__ key")
        if (!text.includes("\\u0000") && !proto) expect(bodyProblem(text)).toBeUndefined()
      })
    )
  })

  it("refuses a `__proto__` key wherever fast-check puts it, by its path", () => {
    expect(bodyProblem('{"__proto__":{}}')?.field).toBe("__proto__")
    expect(bodyProblem('{"a":[{"__proto__":1}]}')?.field).toBe("a[0].__proto__")
    expect(bodyProblem('{"a":{"\\u005f_proto__":1}}')?.field).toBe("a.__proto__")
  })
})

describe("numbers and keys JSON.parse would change (jsonLiterals.ts)", () => {
  const problem = (text: string) => bodyProblem(text)
  it("names a number that would be rounded, underflow or overflow, by its path", () => {
    expect(problem(`{"metadata":{"n":9007199254740993}}`)?.field).toBe("metadata.n")
    expect(problem(`{"metadata":{"n":12345678901234567890}}`)?.message).toContain("12345678901234567000")
    expect(problem(`{"items":[1,{"q":1e-400}]}`)?.field).toBe("items[1].q")
    expect(problem(`{"n":1e400}`)?.message).toContain("Infinity")
    expect(problem(`{"n":0.1000000000000000000001}`)?.field).toBe("n")
    expect(problem(JSON.stringify({ s: "9007199254740993", t: '{"a":1,"a":2,"n":1e-400}' }))).toBeUndefined()
  })

  it("accepts any number that reads back as written, however it is spelt", () => {
    for (const n of ["-0", "1.50", "1e2", "1E+2", "0.1", "9007199254740992", "-9223372036854776000", "1e21", "5e-324"])
      expect(problem(`{"n":${n}}`), n).toBeUndefined()
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(problem(`{"n":${JSON.stringify(n)}}`)).toBeUndefined()
      })
    )
  })

  it("names a key written twice in one object, escapes included; the same key in two objects is fine", () => {
    expect(problem(`{"amount":1000,"amount":2000}`)?.field).toBe("amount")
    expect(problem(`{"metadata":{"a":1,"b":[{"c":1,"c":2}]}}`)?.field).toBe("metadata.b[0].c")
    expect(problem(`{"a\u0062":1,"ab":2}`)?.field).toBe("ab")
    expect(problem(`{"a":{"b":1},"c":{"b":2}}`)).toBeUndefined()
    expect(problem(`[{"a":1},{"a":1}]`)).toBeUndefined()
  })
})
