import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startFakeCielo, type FakeCielo } from "./fakes/cielo/fake.ts"
import { panEndingIn } from "./providers/acquirer.kit.ts"
import { type LivePix, startLivePix } from "./support/livePix.ts"
import { cardBody, newOrder, orderStatus, pixBody, PROCESS } from "./support/payments.ts"
import { runCli } from "./support/processes.ts"

/**
 * An order whose card charge's outcome is unknown (the acquirer's answer lost, its status query failing)
 * takes no other payment, by card, PIX or boleto, until the outcome is known: the buyer whose card charge
 * hangs cannot pay the same order again by PIX and so pay twice (docs/providers.md "Known limits").
 */
const APPROVED = panEndingIn("402400719769", "1")
const SALE = 4_321
let cielo: FakeCielo
let live: LivePix

beforeAll(async () => {
  cielo = await startFakeCielo()
  live = await startLivePix("Loja Duas Vezes", {
    LIVE_ACQUIRERS: "cielo",
    ANTIFRAUD: "sandbox",
    CIELO_TIMEOUT_MS: "1000",
    ACQUIRER_BREAKER_FAILURES: "100000",
    ...cielo.env()
  })
}, 150_000)
afterAll(async () => {
  await live?.stop()
  await cielo?.close()
})

describe("an order whose card charge's outcome is unknown", () => {
  it("refuses another payment of the order, so the buyer cannot pay it twice", async () => {
    const { api, key } = live.merchant
    cielo.faults.inject("sale", { kind: "drop" })
    cielo.faults.inject("query", { kind: "error", status: 503 }, 10_000)
    const { orderId } = await newOrder(api, key, SALE)
    const card = await api.post(PROCESS, cardBody(orderId, SALE, APPROVED), { key })
    expect(card.status, card.text).toBe(201)
    const cardId = card.body.transactionId as string
    expect(cielo.captures(cardId)).toHaveLength(1)
    // The buyer, told nothing, tries to pay the same order by PIX, then by boleto: refused while unknown.
    const pix = await api.post(PROCESS, pixBody(orderId, SALE), { key })
    expect(pix.status, pix.text).toBe(409)
    expect(pix.body.code).toBe("payment_in_progress")
    const orderRows = async () =>
      (
        await live.db.query<{ method: string; status: string }>(
          "select method, status from transactions where order_id = $1 order by created_at",
          [orderId]
        )
      ).rows
    expect(await orderRows()).toEqual([{ method: "CARD", status: "PROCESSING" }])
    // The operator reads Cielo's records (the sale was captured) and concludes it: one payment, the order PAID.
    await live.db.query("update transactions set updated_at = now() - interval '1 hour' where id = $1", [cardId])
    const done = await runCli<{ status: string }>(["charges", "conclude", "--id", cardId, "--captured"], {
      DATABASE_URL: live.databaseUrl
    })
    expect(done.status).toBe("CAPTURED")
    expect(await orderRows()).toEqual([{ method: "CARD", status: "CAPTURED" }])
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
  }, 180_000)
})
