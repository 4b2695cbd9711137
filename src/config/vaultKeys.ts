import { hkdfSync } from "node:crypto"
import { Redacted } from "effect"
import type { AppConfigShape } from "./AppConfig.ts"

/**
 * A 32-byte key for one purpose, derived (HKDF-SHA-256) from CARD_VAULT_KEY: the antifraud's counter keys,
 * the idempotency fingerprints. One secret outside the database, which every process of a deployment
 * shares (docs/configuration.md), and a key per purpose, so that no two uses can be matched.
 */
export const keyFromVault = (config: AppConfigShape, purpose: string): Buffer =>
  Buffer.from(
    hkdfSync("sha256", Buffer.from(Redacted.value(config.cardVaultKey), "base64"), Buffer.alloc(0), purpose, 32)
  )
