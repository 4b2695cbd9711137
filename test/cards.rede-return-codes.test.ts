import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { makeCieloAcquirer } from "../src/adapters/providers/cielo/CieloAcquirer.ts"
import { type AcquirerService, makeFailoverAcquirer } from "../src/adapters/providers/failover/FailoverAcquirer.ts"
import { makeRedeAcquirer } from "../src/adapters/providers/rede/RedeAcquirer.ts"
import type { Metrics } from "../src/ports/Metrics.ts"
import { type FakeCielo, startFakeCielo } from "./fakes/cielo/fake.ts"
import { type FakeRede, startFakeRede } from "./fakes/rede/fake.ts"
import { type Listener, listen, noMetrics, readBody, relay, sendJson } from "./fakes/shared/server.ts"
import { card, panEndingIn } from "./providers/acquirer.kit.ts"

/**
 * e.Rede return codes read as e.Rede means them (docs/providers.md "e.Rede return codes"). e.Rede's published
 * table (as the woo-rede plugin reproduces it, LinkNacional/woo-rede
 * Includes/LknIntegrationRedeForWoocommerceAbecsCodes.php, "Cancellation / refund returns" and "Integration
 * returns"):
 *   360 "Refund request has been successful"  — a refund e.Rede accepted and completes later;
 *   80  "Unauthorized. Contact issuer. (Insufficient funds)", 58/72/83 "Unauthorized. Contact issuer.",
 *   79 "Expired card. Transaction cannot be resubmitted", 84 "Unauthorized. Transaction cannot be resubmitted"
 *   — issuer declines numbered below 100.
 * The fake e.Rede stands behind a proxy that answers these itself for one request and forwards the rest.
 */

let cielo: FakeCielo
let rede: FakeRede
let proxy: Listener
/** What the proxy answers instead of forwarding, once, for POST /v1/transactions and POST …/refunds. */
let saleAnswer: { status: number; body: unknown } | undefined
let refundAnswer: { status: number; body: unknown } | undefined

const metrics = noMetrics as unknown as Metrics["Type"]

const forward = async (req: IncomingMessage, res: ServerResponse) => {
  const body = await readBody(req)
  const path = new URL(req.url ?? "/", "http://proxy").pathname
  if (req.method === "POST" && path === "/v1/transactions" && saleAnswer !== undefined) {
    const a = saleAnswer
    saleAnswer = undefined
    return sendJson(res, a.status, a.body)
  }
  if (req.method === "POST" && /\/refunds$/.test(path) && refundAnswer !== undefined) {
    const a = refundAnswer
    refundAnswer = undefined
    return sendJson(res, a.status, a.body)
  }
  await relay(req, body, res, rede.server.url())
}

let redeAdapter: AcquirerService
let members: Map<string, AcquirerService>

beforeAll(async () => {
  cielo = await startFakeCielo()
  rede = await startFakeRede()
  proxy = await listen(forward)
  redeAdapter = makeRedeAcquirer({
    pv: rede.pv,
    token: Redacted.make(rede.token),
    apiUrl: proxy.url(),
    timeoutMs: 2_000
  })
  members = new Map<string, AcquirerService>([
    ["rede", redeAdapter],
    [
      "cielo",
      makeCieloAcquirer({
        merchantId: cielo.merchantId,
        merchantKey: Redacted.make(cielo.merchantKey),
        apiUrl: cielo.api.url(),
        queryUrl: cielo.query.url(),
        timeoutMs: 2_000
      })
    ]
  ])
})
afterAll(async () => {
  await proxy?.close()
  await cielo?.close()
  await rede?.close()
})
beforeEach(() => {
  saleAnswer = undefined
  refundAnswer = undefined
})

const APPROVED = card(panEndingIn("402400719769", "1"), "Visa")

describe("e.Rede return codes", () => {
  it("360 'Refund request has been successful' (completed later) is not a refused refund", async () => {
    const key = randomUUID()
    const approved = Either.getOrThrow(
      await Effect.runPromise(
        Effect.either(redeAdapter.charge({ idempotencyKey: key, amount: 10_000, installments: 1, card: APPROVED }))
      )
    ) as { acquirerReference: string }
    // e.Rede accepts the refund of R$ 40,00 and will make it later: not in GET /v1/transactions/{tid} yet.
    refundAnswer = {
      status: 201,
      body: { returnCode: "360", returnMessage: "Refund request has been successful", tid: approved.acquirerReference }
    }
    const refund = await Effect.runPromise(
      Effect.either(
        redeAdapter.refund({
          idempotencyKey: randomUUID(),
          acquirerReference: approved.acquirerReference,
          amount: 4_000,
          acquirer: "rede"
        })
      )
    )
    // not_charged ⇒ Refunds.finish records it FAILED and gives the merchant its R$ 40,00 back, while the buyer
    // receives R$ 40,00 from e.Rede: R$ 40,00 paid twice. Done, or at worst unknown (PENDING for an operator).
    expect(Either.isLeft(refund) && refund.left.outcome).not.toBe("not_charged")
  })

  it("80 (issuer: insufficient funds) is a decline: never failed over to Cielo, which would charge it", async () => {
    const key = randomUUID()
    const router = makeFailoverAcquirer(
      members,
      { order: ["rede", "cielo"], byBrand: {}, breaker: { failures: 5, cooldownMs: 60_000 } },
      metrics
    )
    saleAnswer = {
      status: 402,
      body: { returnCode: "80", returnMessage: "Unauthorized. Contact issuer. (Insufficient funds)", reference: key }
    }
    const result = await Effect.runPromise(
      Effect.either(router.charge({ idempotencyKey: key, amount: 10_000, installments: 1, card: APPROVED }))
    )
    // docs/providers.md "Failover rules" 3: never after a decline. The issuer refused R$ 100,00 at e.Rede.
    expect(cielo.captures(key)).toHaveLength(0)
    expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Declined", code: "insufficient_funds" })
  })

  it.each([
    ["58", "Unauthorized. Contact issuer.", "card_declined"],
    ["72", "Contact issuer.", "card_declined"],
    ["79", "Expired card. Transaction cannot be resubmitted. Contact issuer.", "expired_card"],
    ["83", "Unauthorized. Contact issuer.", "card_declined"],
    ["84", "Unauthorized. Transaction cannot be resubmitted. Contact issuer.", "card_declined"],
    ["86", "Expired card", "expired_card"]
  ])("%s (%s) is the issuer's decline %s, not failed over", async (returnCode, returnMessage, code) => {
    const key = randomUUID()
    const router = makeFailoverAcquirer(
      members,
      { order: ["rede", "cielo"], byBrand: {}, breaker: { failures: 5, cooldownMs: 60_000 } },
      metrics
    )
    saleAnswer = { status: 402, body: { returnCode, returnMessage, reference: key } }
    const result = await Effect.runPromise(
      Effect.either(router.charge({ idempotencyKey: key, amount: 10_000, installments: 1, card: APPROVED }))
    )
    expect(cielo.captures(key)).toHaveLength(0)
    expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Declined", code })
  })

  it("a request validation below 100 (70 amount: Invalid parameter size) is still nothing charged", async () => {
    const key = randomUUID()
    saleAnswer = { status: 400, body: { returnCode: "70", returnMessage: "amount: Invalid parameter size" } }
    const result = await Effect.runPromise(
      Effect.either(redeAdapter.charge({ idempotencyKey: key, amount: 10_000, installments: 1, card: APPROVED }))
    )
    expect(Either.isLeft(result) && result.left.outcome).toBe("not_charged")
  })
})
