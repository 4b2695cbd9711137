import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { generateWebhookSecret } from "../src/adapters/crypto/webhook-signature.ts"
import type { Resolver } from "../src/adapters/http/url-guard.ts"
import { makeWebhookSender } from "../src/adapters/http/WebhookSenderLive.ts"
import { type Receiver, startReceiver } from "./support/receiver.ts"

/**
 * Webhooks under faults: the sender keeps one keep-alive agent per receiver origin and lets the least
 * recently used go once MAX_AGENTS (256) are open. It did so with `agent.destroy()`, which (Node docs)
 * "destroys any sockets that are currently in use by the agent": a delivery to a receiver slow but well within
 * WEBHOOK_TIMEOUT_MS had its socket torn down as soon as 256 other origins were used meanwhile — the receiver
 * got the request, the attempt was recorded a connection failure and retried (a duplicate), and with enough
 * merchants under load a slow receiver never succeeded and ended FAILED. Now only idle sockets close at once.
 */

const everyHostIsLoopback: Resolver = async () => [{ address: "127.0.0.1", family: 4 }]

let slow: Receiver
let fast: Receiver
beforeAll(async () => {
  slow = await startReceiver()
  fast = await startReceiver()
  slow.respond({ status: 200, delayMs: 1_500, body: "ok" })
  fast.respond({ status: 200, body: "ok" })
})
afterAll(async () => {
  await slow?.close()
  await fast?.close()
})

describe("the sender's per-origin agent pool", () => {
  it("a slow receiver's in-flight delivery survives 256 deliveries to other origins meanwhile", async () => {
    const sender = makeWebhookSender({ timeoutMs: 5_000, allowPrivate: true, resolver: everyHostIsLoopback })
    const secret = generateWebhookSecret()
    const request = (url: string, deliveryId: string) => ({
      url,
      deliveryId,
      timestamp: Math.floor(Date.now() / 1000),
      body: JSON.stringify({ event: "transaction.paid" }),
      secret
    })

    const inFlight = Effect.runPromise(sender.send(request(`http://slow.example:${slow.port}/hook`, "slow-1")))
    await slow.waitFor((rs) => rs.length === 1, 3_000)

    // 256 other merchants' endpoints (distinct host names, so distinct origins) answered meanwhile.
    await Effect.runPromise(
      Effect.forEach(
        Array.from({ length: 256 }, (_, i) => i),
        (i) => sender.send(request(`http://m${i}.example:${fast.port}/hook`, `fast-${i}`)),
        { concurrency: 16 }
      )
    )
    const outcome = await inFlight

    expect(slow.requests).toHaveLength(1) // the receiver did get it
    // On the current code: {_tag: "Unreachable", reason: "connection failed (ECONNRESET)"} after ~0.3 s.
    expect(outcome._tag === "Unreachable" ? outcome.reason : outcome._tag).toBe("Delivered")
  })
})
