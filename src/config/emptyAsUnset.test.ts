import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { ReceiverConfig } from "../adapters/providers/bcb-pix/receiver.ts"
import { emptyAsUnset } from "./emptyAsUnset.ts"

/** docs/configuration.md "Empty values": installed for every role (src/main.ts) and the CLI (src/cli.ts). */
describe("a variable set empty is unset", () => {
  const receiver = (secret: string) =>
    Effect.runSync(
      ReceiverConfig.pipe(
        Effect.withConfigProvider(
          emptyAsUnset(
            ConfigProvider.fromMap(
              new Map([
                ["PIX_PSP", "efi"],
                ["PIX_WEBHOOK_PORT", "8443"],
                ["PIX_WEBHOOK_TLS_CERT_FILE", "cert.pem"],
                ["PIX_WEBHOOK_TLS_KEY_FILE", "key.pem"],
                ["PIX_WEBHOOK_SECRET", secret]
              ])
            )
          )
        )
      )
    )

  it("PIX_WEBHOOK_SECRET='' is no secret path at all, not an empty one that any allowed address matches", () => {
    expect(Option.isNone(receiver("").secret)).toBe(true)
    expect(Option.isNone(receiver("   ").secret)).toBe(true)
    expect(Option.map(receiver("s3cr3t").secret, Redacted.value)).toEqual(Option.some("s3cr3t"))
  })
})
