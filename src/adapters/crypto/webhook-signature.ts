import { createHmac, randomBytes } from "node:crypto"

/**
 * Standard Webhooks (https://www.standardwebhooks.com) symmetric signatures.
 * Receivers verify with any Standard Webhooks library, so the format must match
 * the spec byte for byte: `v1,` + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")).
 */

const SECRET_PREFIX = "whsec_"

/** A fresh per-endpoint secret: `whsec_` + base64 of 32 random bytes (256-bit key). */
export const generateWebhookSecret = (): string => SECRET_PREFIX + randomBytes(32).toString("base64")

export interface WebhookSignatureInput {
  readonly secret: string
  readonly msgId: string
  /** Unix time in whole seconds (the `webhook-timestamp` header value). */
  readonly timestamp: number
  readonly body: string
}

export const signWebhook = ({ secret, msgId, timestamp, body }: WebhookSignatureInput): string => {
  // The spec's key is the base64 part after the prefix; like the reference libraries
  // we also accept a bare base64 secret.
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")
  // An empty key would "sign" with no secret at all: a programming error, never a valid endpoint.
  if (key.length === 0) throw new Error("webhook secret is empty or not base64")
  if (!Number.isSafeInteger(timestamp)) throw new Error("webhook timestamp must be whole unix seconds")
  const mac = createHmac("sha256", key).update(`${msgId}.${timestamp}.${body}`, "utf8").digest("base64")
  return `v1,${mac}`
}
