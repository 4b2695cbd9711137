import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Refunds of a card sold in installments with interest (issue 19 item 6; CONTRACT-v1 §2, §3, §7): the
 * buyer was charged `amount_total`, so that is what can be refunded, and the fee comes back in
 * proportion to `amount_total`. Every figure is computed here from the contract's rules, to the centavo.
 */

let server: TestServer
let api: Client
beforeAll(async () => {
  // The test configuration's installment rules are CONTRACT-v1 §4's defaults: 1 without interest, 2.99 % a month.
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

const V1 = "/public/v1"

/** CONTRACT-v1 §4's Price table at 2.99 % a month, exactly: round_half_up(N·i·(1+i)^n / ((1+i)^n − 1)) · n. */
const priceTotal = (amount: number, n: number) => {
  const grown = 10_299n ** BigInt(n)
  const base = 10_000n ** BigInt(n)
  const num = BigInt(amount) * 299n * grown
  const den = 10_000n * (grown - base)
  return Number((2n * num + den) / (2n * den)) * n
}
/** FEE_CREDIT_CARD 3.99 %, rounded half up (CONTRACT-v1 §7). */
const cardFee = (total: number) => Math.floor((total * 399 + 5_000) / 10_000)
/** The fee returned once `refunded` of `total` went back: round_half_up(fee · refunded / total). */
const returned = (fee: number, refunded: number, total: number) =>
  Math.floor((2 * fee * refunded + total) / (2 * total))

const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" })
const card = {
  number: CARDS.visa,
  holder_name: "MARIA SILVA",
  exp_month: "12",
  exp_year: String(new Date().getUTCFullYear() + 3),
  cvv: "123"
}

const installmentSale = async (key: string, amount: number, installments: number) => {
  const created = await api.post(
    `${V1}/transactions`,
    { method: "credit_card", amount, installments, customer: customer(), card },
    { token: key }
  )
  expect(created.status, created.text).toBe(201)
  expect(created.body.data).toMatchObject({ status: "paid", amount, installments })
  return created.body.data as { hash: string; amount_total: number; amount_interest: number }
}

const refund = (key: string, hash: string, amount?: number) =>
  api.post(`${V1}/transactions/${hash}/refund`, amount === undefined ? {} : { amount }, { token: key })

const balance = async (key: string) => {
  const reply = await api.get(`${V1}/balance`, { token: key })
  expect(reply.status, reply.text).toBe(200)
  const { available, pending, reserved } = reply.body.data
  return { available, pending, reserved }
}

/** The merchant's postings of one transaction, summed by type. */
const postings = async (hash: string) => {
  const rows = await server.db.query<{ type: string; sum: string }>(
    `select type, sum(amount)::text as sum from ledger_postings
     where transaction_id = $1 and party = 'merchant' group by type order by type`,
    [hash]
  )
  return Object.fromEntries(rows.rows.map((r) => [r.type, Number(r.sum)]))
}

describe("refunding a card sold in 3 installments with interest", () => {
  const amount = 10_000
  const total = priceTotal(amount, 3)
  const fee = cardFee(total)

  it("charges amount_total; a partial then the full refund reach amount_total, the fee in proportion", async () => {
    expect(total).toBeGreaterThan(amount)
    const { key } = await signup(api)
    const sale = await installmentSale(key, amount, 3)
    expect(sale).toMatchObject({ amount_total: total, amount_interest: total - amount })
    expect(await balance(key)).toEqual({ available: 0, pending: total - fee, reserved: 0 })

    // Partial: 4,000 of the total.
    const partial = await refund(key, sale.hash, 4_000)
    expect(partial.status, partial.text).toBe(200)
    expect(partial.body.data).toMatchObject({ status: "refunded", refunded_amount: 4_000, amount_total: total })
    const firstReturn = returned(fee, 4_000, total)
    expect(await balance(key)).toEqual({ available: 0, pending: total - fee - (4_000 - firstReturn), reserved: 0 })
    expect(await postings(sale.hash)).toEqual({ sale: total, fee: -fee + firstReturn, refund: -4_000 })

    // More than what is left (amount_total − refunded) → 400 naming `amount`, nothing moves.
    const over = await refund(key, sale.hash, total - 4_000 + 1)
    expect(over.status, over.text).toBe(400)
    expect(over.body).toMatchObject({ success: false, errors: [{ field: "amount" }] })

    // The rest, past `amount` up to `amount_total`: the buyer gets back all they were charged, interest included.
    const rest = await refund(key, sale.hash)
    expect(rest.status, rest.text).toBe(200)
    expect(rest.body.data).toMatchObject({ status: "refunded", refunded_amount: total, amount_total: total })
    expect(await balance(key)).toEqual({ available: 0, pending: 0, reserved: 0 })
    expect(await postings(sale.hash)).toEqual({ sale: total, fee: 0, refund: -total })

    const again = await refund(key, sale.hash, 1)
    expect(again.status, again.text).toBe(409)
    const read = await api.get(`${V1}/transactions/${sale.hash}`, { token: key })
    expect(read.body.data).toMatchObject({ refunded_amount: total })
    const rows = await server.db.query<{ amount: string; status: string }>(
      "select amount::text, status from refunds where transaction_id = $1 order by created_at",
      [sale.hash]
    )
    expect(rows.rows).toEqual([
      { amount: "4000", status: "SUCCEEDED" },
      { amount: String(total - 4_000), status: "SUCCEEDED" }
    ])
  })

  it("above amount_total → 400, nothing moves; a full refund returns amount_total and the whole fee", async () => {
    const { key } = await signup(api)
    const sale = await installmentSale(key, amount, 3)
    const over = await refund(key, sale.hash, total + 1)
    expect(over.status, over.text).toBe(400)
    expect(over.body).toMatchObject({ success: false, errors: [{ field: "amount" }] })
    expect(await balance(key)).toEqual({ available: 0, pending: total - fee, reserved: 0 })
    expect(await postings(sale.hash)).toEqual({ sale: total, fee: -fee })

    const reply = await refund(key, sale.hash)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.data).toMatchObject({ status: "refunded", refunded_amount: total, amount_total: total })
    expect(await balance(key)).toEqual({ available: 0, pending: 0, reserved: 0 })
    expect(await postings(sale.hash)).toEqual({ sale: total, fee: 0, refund: -total })
  })
})
