import { randomUUID } from "node:crypto"
import { ConfigProvider, Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { makeCieloAcquirer } from "../../src/adapters/providers/cielo/CieloAcquirer.ts"
import { failoverConfig } from "../../src/adapters/providers/failover/config.ts"
import { makeFailoverAcquirer, type AcquirerService } from "../../src/adapters/providers/failover/FailoverAcquirer.ts"
import { makeRedeAcquirer } from "../../src/adapters/providers/rede/RedeAcquirer.ts"
import type { Metrics } from "../../src/ports/Metrics.ts"
import { startFakeCielo, type FakeCielo } from "../fakes/cielo/fake.ts"
import { startFakeRede, type FakeRede } from "../fakes/rede/fake.ts"
import { listen, readBody, sendJson } from "../fakes/shared/server.ts"
import { card, panEndingIn } from "./acquirer.kit.ts"

/**
 * The failover rules (docs/providers.md "Failover rules") over the two fakes: the next acquirer only
 * when the previous one certainly did not charge; never after a decline or an unanswerable unknown;
 * the circuit breaker; routes per brand; refunds and status back to the acquirer that charged.
 */

let cielo: FakeCielo
let rede: FakeRede
let members: Map<string, AcquirerService>
const counted = new Map<string, number>()
const metrics = {
  acquirerAttempts: {
    inc: (l: { acquirer: string; outcome: string }) =>
      void counted.set(`${l.acquirer}:${l.outcome}`, (counted.get(`${l.acquirer}:${l.outcome}`) ?? 0) + 1)
  },
  acquirerAttemptDuration: { observe: () => {} },
  acquirerCircuitOpen: { set: () => {} }
} as unknown as Metrics["Type"]

beforeAll(async () => {
  cielo = await startFakeCielo()
  rede = await startFakeRede()
  members = new Map<string, AcquirerService>([
    [
      "cielo",
      makeCieloAcquirer({
        merchantId: cielo.merchantId,
        merchantKey: Redacted.make(cielo.merchantKey),
        apiUrl: cielo.api.url(),
        queryUrl: cielo.query.url(),
        timeoutMs: 500
      })
    ],
    [
      "rede",
      makeRedeAcquirer({ pv: rede.pv, token: Redacted.make(rede.token), apiUrl: rede.server.url(), timeoutMs: 500 })
    ]
  ])
})
afterAll(async () => {
  await cielo?.close()
  await rede?.close()
})
beforeEach(() => {
  counted.clear()
  cielo.faults.clear()
  rede.faults.clear()
})

const APPROVED = card(panEndingIn("402400719769", "1"), "Visa")
const DECLINED = card(panEndingIn("402400719769", "2"), "Visa")
const router = (now = Date.now, byBrand = {}) =>
  makeFailoverAcquirer(
    members,
    { order: ["cielo", "rede"], byBrand, breaker: { failures: 2, cooldownMs: 60_000 } },
    metrics,
    now
  )
const charge = (acquirer: AcquirerService, key = randomUUID(), c = APPROVED) =>
  Effect.runPromise(Effect.either(acquirer.charge({ idempotencyKey: key, amount: 10_000, installments: 1, card: c })))

describe("failover", () => {
  it("Cielo times out before accepting: e.Rede charges, one capture in all, and the approval names it", async () => {
    const key = randomUUID()
    cielo.faults.inject("sale", { kind: "timeout" })
    const result = Either.getOrThrow(await charge(router(), key))
    expect(result).toMatchObject({ _tag: "Approved", acquirer: "rede" })
    expect(cielo.captures(key)).toHaveLength(0)
    expect(rede.captures(key)).toHaveLength(1)
    expect(counted.get("cielo:not_charged")).toBe(1)
    expect(counted.get("rede:approved")).toBe(1)
  })

  it("5xx before acting and connection refused move on too", async () => {
    cielo.faults.inject("sale", { kind: "error", status: 500 })
    expect(Either.getOrThrow(await charge(router()))).toMatchObject({ acquirer: "rede" })
    await cielo.api.down()
    try {
      expect(Either.getOrThrow(await charge(router()))).toMatchObject({ acquirer: "rede" })
    } finally {
      await cielo.api.up()
    }
  })

  it("never after a decline: e.Rede is not asked", async () => {
    const key = randomUUID()
    const before = rede.seen().length
    expect(Either.getOrThrow(await charge(router(), key, DECLINED))).toMatchObject({
      _tag: "Declined",
      code: "card_declined"
    })
    expect(rede.seen().length).toBe(before)
  })

  it("never on an unknown outcome nobody could clear: the charge stays unknown, e.Rede is not asked", async () => {
    const key = randomUUID()
    cielo.faults.inject("sale", { kind: "drop" })
    cielo.faults.inject("query", { kind: "error", status: 503 }, 2)
    const before = rede.seen().length
    const result = await charge(router(), key)
    expect(Either.isLeft(result) && result.left.outcome).toBe("unknown")
    expect(rede.seen().length).toBe(before)
    expect(cielo.captures(key)).toHaveLength(1)
    // Reconciliation's question finds it at Cielo.
    expect(Either.getOrThrow(await Effect.runPromise(Effect.either(router().status(key))))).toMatchObject({
      _tag: "Approved",
      acquirer: "cielo"
    })
  })

  it("Cielo commits then drops the connection: its status query finds the charge, e.Rede is not asked", async () => {
    const key = randomUUID()
    cielo.faults.inject("sale", { kind: "drop" })
    expect(Either.getOrThrow(await charge(router(), key))).toMatchObject({ _tag: "Approved", acquirer: "cielo" })
    expect(rede.captures(key)).toHaveLength(0)
  })

  // No acquirer documents a 5xx as "nothing charged": Cielo's manual ("HTTP Status Code") lists only "500
  // Internal Server Error", and docs.cielo.com.br ("HTTP Codes") says 500/502/503 may come from an internal
  // failure. Read as not_charged, the router charged the buyer again at the next acquirer.
  it("Cielo made the sale but its gateway answered 502: the router must not charge e.Rede as well", async () => {
    const key = randomUUID()
    cielo.faults.inject("sale", { kind: "error-after", status: 502 })
    const before = rede.seen().length
    const result = await charge(router(), key)
    // The buyer is charged once in all, and the approval is Cielo's.
    expect(cielo.captures(key).length + rede.captures(key).length).toBe(1)
    expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Approved", acquirer: "cielo" })
    expect(rede.seen().length).toBe(before)
  })

  it("e.Rede made the transaction but answered 504: the router must not charge Cielo as well", async () => {
    const key = randomUUID()
    rede.faults.inject("transaction", { kind: "error-after", status: 504 })
    const redeFirst = makeFailoverAcquirer(
      members,
      { order: ["rede", "cielo"], byBrand: {}, breaker: { failures: 2, cooldownMs: 60_000 } },
      metrics
    )
    const result = await charge(redeFirst, key)
    expect(cielo.captures(key).length + rede.captures(key).length).toBe(1)
    expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Approved", acquirer: "rede" })
  })

  // Cielo's "Códigos de Erros da API": 131 "MerchantKey is required" is our configuration, not the buyer's card.
  it("Cielo refuses our credentials (400, 131): e.Rede charges it; a buyer's typo (213) is declined", async () => {
    const answers: Array<[number, string]> = []
    const stub = await listen(async (req, res) => {
      await readBody(req)
      const [code, message] = answers.shift()!
      sendJson(res, 400, [{ Code: code, Message: message }])
    })
    try {
      const stubbed = makeFailoverAcquirer(
        new Map<string, AcquirerService>([
          [
            "cielo",
            makeCieloAcquirer({
              merchantId: cielo.merchantId,
              merchantKey: Redacted.make(cielo.merchantKey),
              apiUrl: stub.url(),
              queryUrl: cielo.query.url(),
              timeoutMs: 500
            })
          ],
          ["rede", members.get("rede")!]
        ]),
        { order: ["cielo", "rede"], byBrand: {}, breaker: { failures: 2, cooldownMs: 60_000 } },
        metrics
      )
      answers.push([131, "MerchantKey is required"])
      expect(Either.getOrThrow(await charge(stubbed))).toMatchObject({ _tag: "Approved", acquirer: "rede" })
      expect(counted.get("cielo:not_charged")).toBe(1)
      const before = rede.seen().length
      answers.push([213, "Credit Card Number is invalid"])
      expect(Either.getOrThrow(await charge(stubbed))).toMatchObject({ _tag: "Declined", code: "card_declined" })
      expect(rede.seen().length).toBe(before)
    } finally {
      await stub.close()
    }
  })

  it("the circuit breaker skips Cielo after two failures, until its cooldown ends", async () => {
    let clock = Date.now()
    const r = router(() => clock)
    cielo.faults.inject("sale", { kind: "error", status: 500 }, 2)
    await charge(r)
    await charge(r)
    const seen = cielo.seen().length
    expect(Either.getOrThrow(await charge(r))).toMatchObject({ acquirer: "rede" })
    expect(cielo.seen().length).toBe(seen)
    expect(counted.get("cielo:skipped")).toBe(1)
    clock += 60_001
    expect(Either.getOrThrow(await charge(r))).toMatchObject({ acquirer: "cielo" })
  })

  it("a brand route: Elo goes to e.Rede first", async () => {
    const elo = card("6362970000457013", "Elo")
    expect(
      Either.getOrThrow(await charge(router(Date.now, { Elo: ["rede", "cielo"] }), randomUUID(), elo))
    ).toMatchObject({
      acquirer: "rede"
    })
  })

  it("refunds go to the acquirer that charged", async () => {
    cielo.faults.inject("sale", { kind: "timeout" })
    const r = router()
    const approved = Either.getOrThrow(await charge(r)) as { acquirerReference: string; acquirer: string }
    expect(approved.acquirer).toBe("rede")
    await Effect.runPromise(
      r.refund({
        idempotencyKey: randomUUID(),
        acquirerReference: approved.acquirerReference,
        amount: 2_500,
        acquirer: "rede"
      })
    )
    expect(rede.refunded(approved.acquirerReference)).toBe(2_500)
  })
})

describe("failover configuration", () => {
  const read = (env: Record<string, string>) =>
    Effect.runPromise(
      Effect.either(
        Effect.withConfigProvider(
          failoverConfig(["sandbox", "cielo", "rede"]),
          ConfigProvider.fromMap(new Map(Object.entries(env)))
        )
      )
    )

  it("reads the order, the brand routes and the breaker", async () => {
    const read1 = Either.getOrThrow(
      await read({
        LIVE_ACQUIRERS: "cielo, rede",
        LIVE_ACQUIRERS_BY_BRAND: "Elo:rede,cielo",
        ACQUIRER_BREAKER_FAILURES: "3",
        ACQUIRER_BREAKER_COOLDOWN_SECONDS: "10"
      })
    )
    expect(read1).toEqual({
      order: ["cielo", "rede"],
      byBrand: { Elo: ["rede", "cielo"] },
      breaker: { failures: 3, cooldownMs: 10_000 }
    })
  })

  it("refuses a missing list, an unknown or repeated name, a bad brand route, naming the variable", async () => {
    for (const env of [
      {},
      { LIVE_ACQUIRERS: "cielo,stone" },
      { LIVE_ACQUIRERS: "cielo,cielo" },
      { LIVE_ACQUIRERS: "cielo", LIVE_ACQUIRERS_BY_BRAND: "Amex:cielo" },
      { LIVE_ACQUIRERS: "cielo", LIVE_ACQUIRERS_BY_BRAND: "Elo:nobody" }
    ]) {
      const result = await read(env)
      expect(Either.isLeft(result), JSON.stringify(env)).toBe(true)
      expect(String(Either.isLeft(result) && result.left)).toMatch(/LIVE_ACQUIRERS/)
    }
  })
})
