import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addCalendarDays } from "../src/domain/calendar.ts"
import { client, type Client, signup } from "./support/http.ts"
import { payBilletAndWait, termsBillet } from "./support/billets.ts"
import { REFUND } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A refund of a boleto paid with its charge terms gives back what the buyer paid (issue 21; docs/boleto.md
 * "Refunds"): principal + fine + interest − discount − abatement, through both interfaces, the fee returned,
 * and the books back to zero to the centavo, computed here from the rules.
 */

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const today = () => new Date().toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" })
const halfUp = (n: number, d: number) => Math.floor((2 * n + d) / (2 * d))

const billet = (due: string, discountUntil: string) => termsBillet(api, key, due, discountUntil)
const payAndWait = (hash: string, query: string) => payBilletAndWait(api, key, hash, query)

/** The transaction's postings summed by party and type (settlements left out: they move, not add). */
const sums = async (id: string) =>
  Object.fromEntries(
    (
      await server.db.query(
        `select party || ':' || type as k, sum(amount)::int as amount from ledger_postings
         where transaction_id = $1 and type <> 'settlement' group by 1 order by 1`,
        [id]
      )
    ).rows.map((r: { k: string; amount: number }) => [r.k, r.amount])
  )

describe("refund of a boleto paid with fine and interest", () => {
  it("v1: the full refund returns what was paid, fine and interest included; the books back to zero", async () => {
    const due = addCalendarDays(today(), 7)
    const hash = await billet(due, today())
    const paidOn = addCalendarDays(due, 10)
    const paid = await payAndWait(hash, `date=${paidOn}`)
    const want = 100_000 + halfUp(100_000 * 2, 100) + halfUp(100_000 * 10, 100 * 30)
    expect(paid.billet.payment.amount_paid).toBe(want)
    // More than was paid is refused naming amount; a part of it too (billets refund in full only).
    const over = await api.post(`/public/v1/transactions/${hash}/refund`, { amount: want + 1 }, { token: key })
    expect(over.status, over.text).toBe(400)
    expect(over.text).toContain("amount")
    const part = await api.post(`/public/v1/transactions/${hash}/refund`, { amount: 100_000 }, { token: key })
    expect(part.status, part.text).toBe(400)
    const refunded = await api.post(`/public/v1/transactions/${hash}/refund`, {}, { token: key })
    expect(refunded.status, refunded.text).toBe(200)
    expect(refunded.body.data).toMatchObject({ status: "refunded", refunded_amount: want, amount_total: 100_000 })
    expect(await sums(hash)).toEqual({
      "merchant:fee": 0,
      "merchant:fine": 2_000,
      "merchant:interest": 333,
      "merchant:refund": -want,
      "merchant:sale": 100_000,
      "system:fee": 0,
      "system:fine": -2_000,
      "system:interest": -333,
      "system:refund": want,
      "system:sale": -100_000
    })
    const again = await api.post(`/public/v1/transactions/${hash}/refund`, {}, { token: key })
    expect(again.status, again.text).toBe(409)
  })

  it("v2: a boleto paid with a discount refunds what was paid, not amount_total", async () => {
    const due = addCalendarDays(today(), 7)
    const hash = await billet(due, addCalendarDays(today(), 1))
    const paid = await payAndWait(hash, `date=${today()}`)
    expect(paid.billet.payment).toMatchObject({ amount_paid: 95_000, discount: 5_000 })
    const over = await api.post(REFUND, { transactionId: hash, amount: 100_000 }, { key })
    expect(over.status, over.text).toBe(400)
    const refunded = await api.post(REFUND, { transactionId: hash }, { key })
    expect(refunded.status, refunded.text).toBe(200)
    expect(refunded.body).toMatchObject({ status: "REFUNDED", refundedAmount: 95_000, amount: 100_000 })
    const t = await api.get(`/api/payment-gateway/transaction/${hash}`, { key })
    expect(t.body.boleto.payment).toMatchObject({ amountPaid: 95_000, discount: 5_000 })
    expect(await sums(hash)).toEqual({
      "merchant:discount": -5_000,
      "merchant:fee": 0,
      "merchant:refund": -95_000,
      "merchant:sale": 100_000,
      "system:discount": 5_000,
      "system:fee": 0,
      "system:refund": 95_000,
      "system:sale": -100_000
    })
  })
})
