import { createHash } from "node:crypto"

/**
 * API keys look like `sk_live_<43 base64url chars>`: 32 random bytes (256 bits) behind a prefix that
 * tells a leaked key's kind at a glance (as Stripe's do). Only a SHA-256 digest is stored: a
 * high-entropy key needs no slow hash, and a lookup by digest costs one index probe.
 */
export type KeyEnvironment = "live" | "test"

const KEY_PATTERN = /^sk_(live|test)_[A-Za-z0-9_-]{43}$/

export const formatApiKey = (environment: KeyEnvironment, random: Uint8Array): string => {
  if (random.length !== 32) throw new RangeError("an API key needs 32 random bytes")
  return `sk_${environment}_${Buffer.from(random).toString("base64url")}`
}

export const looksLikeApiKey = (candidate: string): boolean => KEY_PATTERN.test(candidate)

export const digestApiKey = (key: string): Uint8Array => createHash("sha256").update(key, "utf8").digest()

/** `keyPrefix` of the spec: the first 16 characters. */
export const keyPrefix = (key: string) => key.slice(0, 16)

export const keyLast4 = (key: string) => key.slice(-4)

export const maskKey = (prefix: string, last4: string) => `${prefix}${"•".repeat(8)}${last4}`

export const keyMaterial = (key: string) => ({
  keyPrefix: keyPrefix(key),
  keyLast4: keyLast4(key),
  keyDigest: digestApiKey(key)
})
