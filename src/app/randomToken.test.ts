import { describe, expect, it } from "vitest"
import { randomToken } from "./randomToken.ts"

describe("randomToken", () => {
  it("hands out 256 bits as base64url, never the same twice, across many refills of its pool", () => {
    const tokens = Array.from({ length: 2_000 }, randomToken)
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(Buffer.from(token, "base64url")).toHaveLength(32)
    }
    expect(new Set(tokens).size).toBe(tokens.length)
    // No token is all zeros (a spent, zeroed slice handed out again would be).
    expect(tokens).not.toContain(Buffer.alloc(32).toString("base64url"))
  })
})
