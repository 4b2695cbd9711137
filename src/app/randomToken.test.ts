import { describe, expect, it } from "vitest"
import { randomToken } from "./randomToken.ts"

describe("randomToken", () => {
  it("hands out 256 bits as base64url, each random byte once, across many refills of its pool", () => {
    const tokens = Array.from({ length: 2_000 }, randomToken)
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(Buffer.from(token, "base64url")).toHaveLength(32)
    }
    expect(new Set(tokens).size).toBe(tokens.length)
    // Each byte is handed out once: no 8 bytes of one token appear again, in it or in another (by chance,
    // one in 2^64 per pair), as they would if the pool's slices overlapped or a spent, zeroed one came back.
    const windows = new Set<string>()
    for (const token of tokens) {
      const bytes = Buffer.from(token, "base64url")
      for (let i = 0; i + 8 <= bytes.length; i++) windows.add(bytes.toString("hex", i, i + 8))
    }
    expect(windows.size).toBe(tokens.length * 25)
  })
})
