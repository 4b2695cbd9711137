import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { Webhook } from "standardwebhooks"
import { generateWebhookSecret, signWebhook } from "./webhook-signature.ts"

const now = () => Math.floor(Date.now() / 1000)

const headersFor = (secret: string, msgId: string, timestamp: number, body: string) => ({
  "webhook-id": msgId,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": signWebhook({ secret, msgId, timestamp, body })
})

describe("webhook-signature", () => {
  it("generates whsec_ secrets holding 32 random bytes", () => {
    const secret = generateWebhookSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32)
    expect(generateWebhookSecret()).not.toBe(secret)
  })

  it("matches the spec's published example", () => {
    // Test vector from the Standard Webhooks reference implementation.
    expect(
      signWebhook({
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        msgId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
        timestamp: 1614265330,
        body: '{"test": 2432232314}'
      })
    ).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
  })

  it("is accepted by the standardwebhooks verifier", () => {
    const secret = generateWebhookSecret()
    const body = JSON.stringify({ type: "charge.paid", data: { id: "ch_1", amount: 1990, payer: "João" } })
    const ts = now()
    expect(new Webhook(secret).verify(body, headersFor(secret, "evt_1", ts, body))).toEqual(JSON.parse(body))
  })

  it("is rejected for a tampered body or another secret", () => {
    const secret = generateWebhookSecret()
    const body = '{"amount":1990}'
    const headers = headersFor(secret, "evt_2", now(), body)
    expect(() => new Webhook(secret).verify('{"amount":1991}', headers)).toThrow()
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow()
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "evt_3" })).toThrow()
  })

  it("round-trips through the verifier for arbitrary bodies and ids", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 2000 }),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
        (body, msgId) => {
          const secret = generateWebhookSecret()
          const headers = headersFor(secret, msgId, now(), body)
          new Webhook(secret).verify(body, headers, { jsonParse: false })
          expect(() => new Webhook(secret).verify(body + "x", headers, { jsonParse: false })).toThrow()
        }
      ),
      { numRuns: 200 }
    )
  })

  it("refuses an empty secret instead of signing without a key", () => {
    expect(() => signWebhook({ secret: "whsec_", msgId: "m", timestamp: 1, body: "" })).toThrow()
    expect(() => signWebhook({ secret: generateWebhookSecret(), msgId: "m", timestamp: 1.5, body: "" })).toThrow()
  })
})
