import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { moneyConfig } from "./support/money.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { checkLedger } from "./support/ledger-check.ts"

/**
 * Split recipients rounded down, in refunds and disputes of a sale refunded in part (CONTRACT-v1 §7, §8;
 * docs/ledger.md "Split"): the merchant never gives back more than its whole share, and a dispute holds
 * exactly what is left. Every figure is computed by hand from the contract's rules: PIX fee 0.99 % rounded
 * half up, PIX available at once.
 */

let server: TestServer
let api: Client

const V1 = "/public/v1"
const BANK = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }
const pixFee = (amount: number) => Math.floor((amount * 99 + 5_000) / 10_000)

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, money: moneyConfig() })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" })

const subaccount = async (key: string) => {
  const reply = await api.post(
    `${V1}/subaccounts`,
    { name: "Parceira", document: freshCpf(), email: "p@example.com", phone: "11912345678", bank_account: BANK },
    { token: key }
  )
  expect(reply.status, reply.text).toBe(201)
  return reply.body.data.id as string
}

const paidPix = async (key: string, amount: number, split: ReadonlyArray<unknown> = []) => {
  const body = { method: "pix", amount, customer: customer(), split }
  const created = await api.post(`${V1}/transactions`, body, { token: key })
  expect(created.status, created.text).toBe(201)
  const hash = created.body.data.hash as string
  const paid = await api.post(`/api/sandbox/transactions/${hash}/pay`, undefined, { key })
  expect(paid.status, paid.text).toBe(200)
  return hash
}

const balance = async (key: string, sub?: string) => {
  const reply = await api.get(`${V1}/balance${sub === undefined ? "" : `?subaccount_id=${sub}`}`, { token: key })
  expect(reply.status, reply.text).toBe(200)
  const { available, pending, reserved } = reply.body.data
  return { available, pending, reserved }
}
const total = (b: { available: number; pending: number; reserved: number }) => b.available + b.pending + b.reserved

const check = () => checkLedger(server.databaseUrl)

describe("a dispute after a partial refund of a split sale", () => {
  it("holds and takes back exactly amount_total − refunded_amount, not a centavo per recipient more", async () => {
    const { key } = await signup(api)
    const sub1 = await subaccount(key)
    const sub2 = await subaccount(key)
    // Some money of the merchant's own, so that the partial refund is not refused (see the second test).
    await paidPix(key, 1_000)
    const hash = await paidPix(key, 10_000, [
      { subaccount_id: sub1, amount: 1_000 },
      { subaccount_id: sub2, amount: 1_000 }
    ])
    const refunded = await api.post(`${V1}/transactions/${hash}/refund`, { amount: 9_999 }, { token: key })
    expect(refunded.status, refunded.text).toBe(200)

    const before = [await balance(key), await balance(key, sub1), await balance(key, sub2)]
    const opened = await api.post(`/api/sandbox/transactions/${hash}/med`, { stage: "open" }, { key })
    expect(opened.status, opened.text).toBe(200)
    const during = [await balance(key), await balance(key, sub1), await balance(key, sub2)]
    // CONTRACT-v1 §7: the disputed amount is amount_total − refunded_amount = 1 centavo, moved into reserved.
    const heldNow = during.reduce((s, b) => s + b.reserved, 0) - before.reduce((s, b) => s + b.reserved, 0)
    const mine = (await check()).filter((d) => d.what.includes(hash))
    expect.soft({ heldNow, mine }).toEqual({ heldNow: 1, mine: [] })

    const lost = await api.post(`/api/sandbox/transactions/${hash}/med`, { stage: "lost" }, { key })
    expect(lost.status, lost.text).toBe(200)
    const after = [await balance(key), await balance(key, sub1), await balance(key, sub2)]
    // Lost: the parties together give back exactly the 1 centavo disputed; with the refund, 10 000 in all.
    const given = before.reduce((s, b) => s + total(b), 0) - after.reduce((s, b) => s + total(b), 0)
    const sent = await server.db.query(
      `select coalesce(sum(amount), 0)::int as n from ledger_postings
       where transaction_id = $1 and party = 'system' and type in ('refund', 'med')`,
      [hash]
    )
    expect({ given, sentToPayer: sent.rows[0].n }).toEqual({ given: 1, sentToPayer: 10_000 })
  })
})

describe("a split sale refunded in pieces, from its own money only", () => {
  it("a refund of all but one centavo, then the last centavo, both succeed and leave every party at zero", async () => {
    const { key } = await signup(api)
    const sub1 = await subaccount(key)
    const sub2 = await subaccount(key)
    const hash = await paidPix(key, 10_000, [
      { subaccount_id: sub1, amount: 1_000 },
      { subaccount_id: sub2, amount: 1_000 }
    ])
    expect(await balance(key)).toEqual({ available: 10_000 - pixFee(10_000) - 2_000, pending: 0, reserved: 0 })
    // The whole refund at once would take 7 901 from the merchant (10 000 − 2 000 − its fee returned 99);
    // the same refund in two pieces asks 7 902 of it in the first piece (9 999 − 999 − 999 − 99), above
    // everything the sale gave it, and is refused although nothing was withdrawn (CONTRACT-v1 §7 "A sale
    // can always be refunded in full from its own money"; docs/ledger.md "at once or in pieces").
    const first = await api.post(`${V1}/transactions/${hash}/refund`, { amount: 9_999 }, { token: key })
    expect(first.status, first.text).toBe(200)
    const last = await api.post(`${V1}/transactions/${hash}/refund`, { amount: 1 }, { token: key })
    expect(last.status, last.text).toBe(200)
    expect([await balance(key), await balance(key, sub1), await balance(key, sub2)]).toEqual([
      { available: 0, pending: 0, reserved: 0 },
      { available: 0, pending: 0, reserved: 0 },
      { available: 0, pending: 0, reserved: 0 }
    ])
  })
})
