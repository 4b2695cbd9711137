import { ConfigProvider, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { ReceiverConfig } from "./receiver.ts"

describe("PIX_WEBHOOK_ALLOWED_IPS", () => {
  const env = (allowed: string) =>
    ConfigProvider.fromMap(
      new Map(
        Object.entries({
          PIX_PSP: "efi",
          PIX_WEBHOOK_PORT: "8443",
          PIX_WEBHOOK_TLS_CERT_FILE: "cert.pem",
          PIX_WEBHOOK_TLS_KEY_FILE: "key.pem",
          PIX_WEBHOOK_ALLOWED_IPS: allowed
        })
      )
    )
  it("is read as ranges at start, and a bad entry stops the start naming the variable and the entry", async () => {
    const good = await Effect.runPromise(Effect.withConfigProvider(ReceiverConfig, env("10.0.0.0/8")))
    expect(good.allowedIps.includes("10.9.8.7")).toBe(true)
    const bad = await Effect.runPromise(
      Effect.flip(Effect.withConfigProvider(ReceiverConfig, env("10.0.0.0/8, 10.0.0")))
    )
    expect(String(bad)).toContain('PIX_WEBHOOK_ALLOWED_IPS: "10.0.0" is not an IP address or a CIDR range')
  })
})
