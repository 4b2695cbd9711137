import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { formatApiKey, keyLast4, keyPrefix, maskKey } from "../../domain/apiKey.ts"
import { digestApiKey } from "./Sha256ApiKeyHasher.ts"

describe("API key digest", () => {
  it("stores only what cannot give the key back", () => {
    const key = formatApiKey("live", new Uint8Array(32).fill(7))
    expect(keyPrefix(key)).toHaveLength(16)
    expect(Buffer.from(digestApiKey(key))).toEqual(createHash("sha256").update(key).digest())
    expect(maskKey(keyPrefix(key), keyLast4(key))).not.toContain(key.slice(16, -4))
  })
})
