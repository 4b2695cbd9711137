import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { checkLedger } from "./support/ledger-check.ts"
import { installmentOption, installmentOptions } from "../src/domain/installments.ts"

/**
 * Installments: the quote vs the charge, fee on amount_total, receivables per installment,
 * a split by percentage with installments, refunds in many pieces. Expected figures from CONTRACT-v1 §4, §7, §8.
 */

let server: TestServer
let api: Client
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

const V1 = "/public/v1"
const BANK = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }
const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" })
const card = {
  number: CARDS.visa,
  holder_name: "MARIA SILVA",
  exp_month: "12",
  exp_year: String(new Date().getUTCFullYear() + 3),
  cvv: "123"
}
const halfUp = (num: bigint, den: bigint) => Number((2n * num + den) / (2n * den))
/** CONTRACT-v1 §4 at 2.99 %: round_half_up(N·i·(1+i)^n/((1+i)^n − 1)); n = 1 interest-free. */
const each = (amount: number, n: number) => {
  if (n === 1) return amount
  const grown = 10_299n ** BigInt(n)
  const base = 10_000n ** BigInt(n)
  return halfUp(BigInt(amount) * 299n * grown, 10_000n * (grown - base))
}
const totalOf = (amount: number, n: number) => (n === 1 ? amount : each(amount, n) * n)
const cut = (x: number, n: number) => {
  const e = Math.floor(x / n)
  return Array.from({ length: n }, (_, i) => (i === 0 ? x - e * (n - 1) : e))
}

describe("domain: the quote by the documented formula, many amounts and counts", () => {
  it("installmentOption equals CONTRACT-v1 §4 for amounts 1..3000 step 7 and big ones, n 1..12", () => {
    const rules = { max: 12, withoutInterest: 1, monthlyInterestPercent: "2.99", minAmount: 500 }
    const bad: Array<unknown> = []
    const amounts = [...Array.from({ length: 430 }, (_, i) => 1 + i * 7), 9_999_999_999, 123_456_789, 5_000, 6_000]
    for (const amount of amounts)
      for (let n = 1; n <= 12; n++) {
        const o = installmentOption(amount, n, rules)
        const want =
          n === 1
            ? { amount, total: amount, interestRate: 0 }
            : { amount: each(amount, n), total: each(amount, n) * n, interestRate: 2.99 }
        if (o.amount !== want.amount || o.total !== want.total || o.interestRate !== want.interestRate)
          bad.push({ amount, n, got: o, want })
      }
    expect(bad).toEqual([])
    // Offered: option 1 always; others only when each installment ≥ 500.
    expect(installmentOptions(1, rules).map((o) => o.installment)).toEqual([1])
  })
})

describe("a v1 card charge charges what GET /installments quoted", () => {
  it("for several amounts and every n: amount_total, fee, merchant and split receivables per installment", async () => {
    const { key } = await signup(api)
    const sub = await api.post(
      `${V1}/subaccounts`,
      { name: "Parceira", document: freshCpf(), email: "p@example.com", phone: "11912345678", bank_account: BANK },
      { token: key }
    )
    expect(sub.status, sub.text).toBe(201)
    const subId = (sub.body.data.id as string).toLowerCase()
    const problems: Array<unknown> = []
    for (const amount of [6_001, 12_345]) {
      const quote = await api.get(`${V1}/installments?amount=${amount}`, { token: key })
      expect(quote.status, quote.text).toBe(200)
      const options = quote.body.installments as Array<{ installment: number; amount: number; total: number }>
      for (const n of [1, 2, 5, 12]) {
        const option = options.find((o) => o.installment === n)
        if (option === undefined) continue
        const total = totalOf(amount, n)
        if (option.total !== total) problems.push({ amount, n, quoted: option.total, documented: total })
        const created = await api.post(
          `${V1}/transactions`,
          {
            method: "credit_card",
            amount,
            installments: n,
            customer: customer(),
            card,
            split: [{ subaccount_id: subId, percentage: 12.5 }]
          },
          { token: key }
        )
        expect(created.status, created.text).toBe(201)
        const t = created.body.data
        if (t.amount_total !== option.total || t.amount_interest !== option.total - amount)
          problems.push({ amount, n, charged: t.amount_total, quoted: option.total })
        const fee = halfUp(BigInt(total) * 399n, 10_000n)
        const share = Math.floor((total * 125) / 1000)
        const rows = await server.db.query<{ party: string; installment: number; amount: string }>(
          `select party, installment, amount::text from receivables where transaction_id = $1 and balance = 'pending'
           order by party, installment`,
          [t.hash]
        )
        const merchant = rows.rows.filter((r) => r.party === "merchant").map((r) => Number(r.amount))
        const recipient = rows.rows.filter((r) => r.party === subId).map((r) => Number(r.amount))
        const wantMerchant = cut(total - fee - share, n)
        const wantRecipient = cut(share, n)
        const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
        if (!same(merchant, wantMerchant) || !same(recipient, wantRecipient))
          problems.push({ amount, n, merchant, wantMerchant, recipient, wantRecipient })
      }
    }
    expect(problems).toEqual([])
    expect(await checkLedger(server.databaseUrl)).toEqual([])
  })

  it("an interest-bearing sale refunded in 9 uneven pieces: fee returned exactly, every party at zero", async () => {
    const { key } = await signup(api)
    const amount = 7_777
    const n = 7
    const created = await api.post(
      `${V1}/transactions`,
      { method: "credit_card", amount, installments: n, customer: customer(), card },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const total = totalOf(amount, n)
    expect(created.body.data.amount_total).toBe(total)
    const hash = created.body.data.hash as string
    const fee = halfUp(BigInt(total) * 399n, 10_000n)
    const pieces = [1, 2, 3, 333, 1_000, 17, 2_222, 1]
    pieces.push(total - pieces.reduce((s, x) => s + x, 0))
    let refunded = 0
    for (const piece of pieces) {
      const r = await api.post(`${V1}/transactions/${hash}/refund`, { amount: piece }, { token: key })
      expect(r.status, r.text).toBe(200)
      refunded += piece
      const feeRows = await server.db.query<{ s: string }>(
        `select coalesce(sum(amount), 0)::text as s from ledger_postings
         where transaction_id = $1 and party = 'merchant' and type = 'fee'`,
        [hash]
      )
      // After each refund the fee returned so far is round_half_up(fee · refunded / amount_total).
      expect(Number(feeRows.rows[0]!.s)).toBe(-fee + halfUp(BigInt(fee) * BigInt(refunded), BigInt(total)))
    }
    const bal = await api.get(`${V1}/balance`, { token: key })
    expect(bal.body.data).toMatchObject({ available: 0, pending: 0, reserved: 0 })
    expect(await checkLedger(server.databaseUrl)).toEqual([])
  })
})

describe("extremes", () => {
  it("the maximum amount in 12 installments and 1 centavo in 1: charged as quoted, fee on amount_total", async () => {
    const { key } = await signup(api)
    for (const [amount, n] of [
      [9_999_999_999, 12],
      [1, 1],
      [999, 1]
    ] as const) {
      const quote = await api.get(`${V1}/installments?amount=${amount}`, { token: key })
      expect(quote.status, quote.text).toBe(200)
      const option = (quote.body.installments as Array<{ installment: number; total: number }>).find(
        (o) => o.installment === n
      )!
      expect(option.total).toBe(totalOf(amount, n))
      const created = await api.post(
        `${V1}/transactions`,
        { method: "credit_card", amount, installments: n, customer: customer(), card },
        { token: key }
      )
      expect(created.status, created.text).toBe(201)
      expect(created.body.data).toMatchObject({ amount_total: option.total, amount_interest: option.total - amount })
      const row = await server.db.query<{ fee: string }>("select fee::text from transactions where id = $1", [
        created.body.data.hash
      ])
      expect(Number(row.rows[0]!.fee)).toBe(halfUp(BigInt(option.total) * 399n, 10_000n))
    }
    expect(await checkLedger(server.databaseUrl)).toEqual([])
  })
})
