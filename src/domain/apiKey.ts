import type { Mode } from "./mode.ts"

/**
 * API keys look like `sk_test_<43 base64url chars>` or `sk_live_<…>`: 32 random bytes (256 bits) behind a
 * prefix that tells a leaked key's mode at a glance (as Stripe's do). Only its digest is stored
 * (ApiKeyHasher). The mode a key works in is its tenant's (docs/decisions.md "Test and live modes"), not
 * its prefix: keys issued before modes existed say `sk_live_` and are test keys.
 */
export type KeyEnvironment = Mode

const KEY_PATTERN = /^sk_(live|test)_[A-Za-z0-9_-]{43}$/

export const formatApiKey = (environment: KeyEnvironment, random: Uint8Array): string => {
  if (random.length !== 32) throw new RangeError("an API key needs 32 random bytes")
  return `sk_${environment}_${Buffer.from(random).toString("base64url")}`
}

export const looksLikeApiKey = (candidate: string): boolean => KEY_PATTERN.test(candidate)

/** `keyPrefix` of the spec: the first 16 characters. */
export const keyPrefix = (key: string) => key.slice(0, 16)

export const keyLast4 = (key: string) => key.slice(-4)

export const maskKey = (prefix: string, last4: string) => `${prefix}${"•".repeat(8)}${last4}`

/** What is stored of a key: its prefix, its last four characters and its digest. */
export const keyMaterial = (key: string, digest: (key: string) => Uint8Array) => ({
  keyPrefix: keyPrefix(key),
  keyLast4: keyLast4(key),
  keyDigest: digest(key)
})
