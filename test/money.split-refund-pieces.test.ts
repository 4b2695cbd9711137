import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { checkLedger } from "./support/ledger-check.ts"
import { Effect, Layer } from "effect"
import { LedgerLive } from "../src/adapters/postgres/LedgerLive.ts"
import { makePool, PgPool, SqlLive } from "../src/adapters/postgres/Database.ts"
import { Ids } from "../src/ports/Ids.ts"
import { Ledger } from "../src/ports/Ledger.ts"
import type { AccountId } from "../src/domain/ids.ts"

/**
 * A split sale refunded in three pieces — half, then all but one centavo, then the
 * last centavo. docs/ledger.md "Split": "The merchant never gives back more than its whole share" and
 * CONTRACT-v1 §7 "A sale can always be refunded in full from its own money unless that money was withdrawn".
 * Every figure here is computed from the documented rules (fees half up, recipients floor(R·s/total)).
 */

let server: TestServer
let api: Client
beforeAll(async () => {
  // Test defaults: FEE_CREDIT_CARD 3.99 %, FEE_PIX 0.99 %, reserve 0, PIX available at once, 2.99 % a month.
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
const priceTotal = (amount: number, n: number) => {
  if (n === 1) return amount
  const grown = 10_299n ** BigInt(n)
  const base = 10_000n ** BigInt(n)
  return halfUp(BigInt(amount) * 299n * grown, 10_000n * (grown - base)) * n
}

const subaccount = async (key: string) => {
  const reply = await api.post(
    `${V1}/subaccounts`,
    { name: "Parceira", document: freshCpf(), email: "p@example.com", phone: "11912345678", bank_account: BANK },
    { token: key }
  )
  expect(reply.status, reply.text).toBe(201)
  return reply.body.data.id as string
}
const balance = async (key: string, sub?: string) => {
  const reply = await api.get(`${V1}/balance${sub === undefined ? "" : `?subaccount_id=${sub}`}`, { token: key })
  expect(reply.status, reply.text).toBe(200)
  const { available, pending, reserved } = reply.body.data
  return { available, pending, reserved }
}
const refund = (key: string, hash: string, amount: number) =>
  api.post(`${V1}/transactions/${hash}/refund`, { amount }, { token: key })

describe("a split sale refunded in three pieces from its own money", () => {
  it("PIX 10 000, two recipients of 1 000: 5 000, 4 999, then 1 all succeed, every party ends at zero", async () => {
    const { key } = await signup(api)
    const sub1 = await subaccount(key)
    const sub2 = await subaccount(key)
    const created = await api.post(
      `${V1}/transactions`,
      {
        method: "pix",
        amount: 10_000,
        customer: customer(),
        split: [
          { subaccount_id: sub1, amount: 1_000 },
          { subaccount_id: sub2, amount: 1_000 }
        ]
      },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const hash = created.body.data.hash as string
    const paid = await api.post(`/api/sandbox/transactions/${hash}/pay`, undefined, { key })
    expect(paid.status, paid.text).toBe(200)
    const fee = halfUp(10_000n * 99n, 10_000n) // 99
    // The merchant holds exactly what the sale gave it: 10 000 − 2 000 − 99.
    expect(await balance(key)).toEqual({ available: 10_000 - 2_000 - fee, pending: 0, reserved: 0 })

    const first = await refund(key, hash, 5_000)
    expect(first.status, first.text).toBe(200)
    // Cumulative 9 999: each recipient owes floor(9 999·1 000/10 000) = 999; the merchant's whole share is 8 000,
    // so the recipients give the missing centavo (docs/ledger.md "Split") and the merchant gives 4 000 here,
    // less the fee returned 99 − 50 = 49: it holds 3 951 and needs 3 951.
    const second = await refund(key, hash, 4_999)
    expect(second.status, second.text).toBe(200)
    const last = await refund(key, hash, 1)
    expect(last.status, last.text).toBe(200)
    expect([await balance(key), await balance(key, sub1), await balance(key, sub2)]).toEqual([
      { available: 0, pending: 0, reserved: 0 },
      { available: 0, pending: 0, reserved: 0 },
      { available: 0, pending: 0, reserved: 0 }
    ])
    expect((await checkLedger(server.databaseUrl)).filter((d) => d.what.includes(hash))).toEqual([])
  })

  it("card in 3 installments with interest, two recipients of 1 000: half, then all but 1, then 1", async () => {
    const { key } = await signup(api)
    const sub1 = await subaccount(key)
    const sub2 = await subaccount(key)
    const created = await api.post(
      `${V1}/transactions`,
      {
        method: "credit_card",
        amount: 10_000,
        installments: 3,
        customer: customer(),
        card,
        split: [
          { subaccount_id: sub1, amount: 1_000 },
          { subaccount_id: sub2, amount: 1_000 }
        ]
      },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const total = priceTotal(10_000, 3)
    expect(created.body.data).toMatchObject({ status: "paid", amount_total: total })
    const hash = created.body.data.hash as string
    const fee = halfUp(BigInt(total) * 399n, 10_000n)
    expect(await balance(key)).toEqual({ available: 0, pending: total - 2_000 - fee, reserved: 0 })

    const half = Math.floor(total / 2)
    const first = await refund(key, hash, half)
    expect(first.status, first.text).toBe(200)
    const second = await refund(key, hash, total - 1 - half)
    expect(second.status, second.text).toBe(200)
    const last = await refund(key, hash, 1)
    expect(last.status, last.text).toBe(200)
    expect([await balance(key), await balance(key, sub1), await balance(key, sub2)]).toEqual([
      { available: 0, pending: 0, reserved: 0 },
      { available: 0, pending: 0, reserved: 0 },
      { available: 0, pending: 0, reserved: 0 }
    ])
    expect((await checkLedger(server.databaseUrl)).filter((d) => d.what.includes(hash))).toEqual([])
  })
})

describe("Ledger.refundsTaken", () => {
  it("after one refund of a split PIX, `recipients` holds the subaccounts only", async () => {
    const { key } = await signup(api)
    const sub1 = await subaccount(key)
    const created = await api.post(
      `${V1}/transactions`,
      { method: "pix", amount: 10_000, customer: customer(), split: [{ subaccount_id: sub1, amount: 1_000 }] },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const hash = created.body.data.hash as string
    expect((await api.post(`/api/sandbox/transactions/${hash}/pay`, undefined, { key })).status).toBe(200)
    expect((await refund(key, hash, 5_000)).status).toBe(200)
    const row = await server.db.query<{ account_id: string }>("select account_id from transactions where id = $1", [
      hash
    ])
    const taken = await Effect.runPromise(
      Effect.flatMap(Ledger, (l) => l.refundsTaken(row.rows[0]!.account_id as AccountId, hash)).pipe(
        Effect.provide(
          LedgerLive.pipe(
            Layer.provide(Ids.Live),
            Layer.provide(SqlLive),
            Layer.provide(Layer.scoped(PgPool, makePool(server.databaseUrl, 1)))
          )
        ),
        Effect.scoped
      )
    )
    // takenBefore (src/domain/ledger.ts) — what refundShares expects — names recipients only: {sub1: 500}, fee 50.
    expect({ recipients: Object.fromEntries(taken.recipients), fee: taken.fee }).toEqual({
      recipients: { [sub1.toLowerCase()]: 500 },
      fee: 50
    })
  })
})
