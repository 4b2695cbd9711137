import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { formatApiKey, looksLikeApiKey } from "./apiKey.ts"

describe("API keys", () => {
  it("formats 32 random bytes as a recognisable key", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.constantFrom("live", "test" as const),
        (bytes, env) => {
          const key = formatApiKey(env, bytes)
          expect(looksLikeApiKey(key)).toBe(true)
          expect(key.startsWith(`sk_${env}_`)).toBe(true)
        }
      )
    )
  })

  it("rejects keys that are not of the format", () => {
    for (const bad of [
      "",
      "sk_live_",
      "pk_live_" + "a".repeat(43),
      "sk_live_" + "a".repeat(42),
      "sk_live_" + "a".repeat(43) + " "
    ]) {
      expect(looksLikeApiKey(bad)).toBe(false)
    }
  })
})
