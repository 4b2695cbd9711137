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
import { type Listener, listen, noMetrics, readBody, relay } from "./fakes/shared/server.ts"
import { card, panEndingIn } from "./providers/acquirer.kit.ts"

/**
 * Cielo answering a 2xx other than the 201 of a sale or the 200 of a void (docs/providers.md "Going live with
 * Cielo"). A 2xx means Cielo accepted the request, so its body is read as a 201's (a sale) or a 200's (a void)
 * is, and an unclear one is asked about or read back; only a refusal outside 2xx is "nothing done". The adapter
 * used to read every status but 200/201 on a sale, and every status but 200 on a void, as refused before
 * anything was done (`not_charged`), without looking at the body or asking Cielo: on a sale a failover to the
 * next acquirer after Cielo charged the buyer, on a void a refund recorded FAILED (its money handed back to the
 * merchant) after Cielo refunded the buyer.
 *
 * The fake Cielo stands behind a proxy that only changes the HTTP status of one kind of answer (the body,
 * and what the fake did, are untouched).
 */

let cielo: FakeCielo
let rede: FakeRede
let proxy: Listener
/** The status the proxy gives the next answers of POST /1/sales and PUT …/void (undefined: unchanged). */
let saleStatus: number | undefined
let voidStatus: number | undefined

const metrics = noMetrics as unknown as Metrics["Type"]

const forward = async (req: IncomingMessage, res: ServerResponse) => {
  const path = new URL(req.url ?? "/", "http://proxy").pathname
  await relay(req, await readBody(req), res, cielo.api.url(), (status) => {
    if (req.method === "POST" && path === "/1/sales" && saleStatus !== undefined && status === 201) return saleStatus
    if (req.method === "PUT" && /\/void$/.test(path) && voidStatus !== undefined && status === 200) return voidStatus
    return status
  })
}

let cieloAdapter: AcquirerService
let members: Map<string, AcquirerService>

beforeAll(async () => {
  cielo = await startFakeCielo()
  rede = await startFakeRede()
  proxy = await listen(forward)
  cieloAdapter = makeCieloAcquirer({
    merchantId: cielo.merchantId,
    merchantKey: Redacted.make(cielo.merchantKey),
    apiUrl: proxy.url(),
    queryUrl: cielo.query.url(),
    timeoutMs: 2_000
  })
  members = new Map<string, AcquirerService>([
    ["cielo", cieloAdapter],
    [
      "rede",
      makeRedeAcquirer({ pv: rede.pv, token: Redacted.make(rede.token), apiUrl: rede.server.url(), timeoutMs: 2_000 })
    ]
  ])
})
afterAll(async () => {
  await proxy?.close()
  await cielo?.close()
  await rede?.close()
})
beforeEach(() => {
  saleStatus = undefined
  voidStatus = undefined
})

const APPROVED = card(panEndingIn("402400719769", "1"), "Visa")

describe("Cielo's 2xx answers are never read as 'nothing done'", () => {
  it("a sale Cielo answers 202 (its body: PaymentConfirmed, ReturnCode 6) is not charged again at e.Rede", async () => {
    const router = makeFailoverAcquirer(
      members,
      { order: ["cielo", "rede"], byBrand: {}, breaker: { failures: 5, cooldownMs: 60_000 } },
      metrics
    )
    const key = randomUUID()
    saleStatus = 202
    const result = await Effect.runPromise(
      Effect.either(router.charge({ idempotencyKey: key, amount: 10_000, installments: 1, card: APPROVED }))
    )
    // Cielo made the sale (R$ 100,00 captured) and said so in the body.
    expect(cielo.captures(key)).toHaveLength(1)
    expect(cielo.captures(key)[0]!.payment.CapturedAmount).toBe(10_000)
    // The buyer must be charged R$ 100,00 once: no second capture at e.Rede, and the approval is Cielo's.
    expect(rede.captures(key)).toHaveLength(0)
    expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Approved", acquirer: "cielo" })
  })

  it("a sale Cielo answers 202 alone (no failover): not reported as certainly not charged", async () => {
    const key = randomUUID()
    saleStatus = 202
    const result = await Effect.runPromise(
      Effect.either(cieloAdapter.charge({ idempotencyKey: key, amount: 10_000, installments: 1, card: APPROVED }))
    )
    expect(cielo.captures(key)).toHaveLength(1)
    // not_charged makes Payments.authorize FAIL the transaction (processing_error) while the buyer paid R$ 100,00.
    expect(Either.isLeft(result) && result.left.outcome).not.toBe("not_charged")
    expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Approved" })
  })

  it("a void Cielo answers 202 (its body: Status 10, ReturnCode 9) and made is not a refused refund", async () => {
    const key = randomUUID()
    const approved = Either.getOrThrow(
      await Effect.runPromise(
        Effect.either(cieloAdapter.charge({ idempotencyKey: key, amount: 10_000, installments: 1, card: APPROVED }))
      )
    ) as { acquirerReference: string }
    voidStatus = 202
    const refund = await Effect.runPromise(
      Effect.either(
        cieloAdapter.refund({
          idempotencyKey: randomUUID(),
          acquirerReference: approved.acquirerReference,
          amount: 10_000,
          acquirer: "cielo"
        })
      )
    )
    // Cielo voided the whole R$ 100,00: the buyer has it back.
    expect(cielo.refunded(approved.acquirerReference)).toBe(10_000)
    // A not_charged refund is recorded FAILED and its R$ 100,00 returned to the merchant (Refunds.finish):
    // buyer and merchant would both hold it. Done (or at worst unknown), never "refused".
    expect(Either.isLeft(refund) && refund.left.outcome).not.toBe("not_charged")
    expect(Either.isRight(refund)).toBe(true)
  })
})
