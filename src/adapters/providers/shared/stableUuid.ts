import { createHash } from "node:crypto"

/**
 * A UUID-shaped id derived from its parts (SHA-256, version nibble 5-like): the same attempt always
 * sends the same request id, across retries and across processes, without storing it
 * (docs/providers.md "Failover rules": one stable key per attempt, medusajs/medusa#16292).
 */
export const stableUuid = (...parts: ReadonlyArray<string>): string => {
  const hex = createHash("sha256").update(parts.join("\u0000")).digest("hex")
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  const [a, b, c, d, e] = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(13, 16), hex.slice(17, 20), hex.slice(20, 32)]
  return `${a}-${b}-5${c}-${variant}${d}-${e}`
}
