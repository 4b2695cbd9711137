import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { moneyConfig } from "./support/money.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { checkLedger } from "./support/ledger-check.ts"

/**
 * A split sale refunded in pieces must be payable from its own money (CONTRACT-v1 §7 "A sale can
 * always be refunded in full from its own money"; docs/ledger.md "Split": "The merchant never gives back
 * more than its whole share"). `refundShares` bounds the merchant's *gross* part (amount_total − Σ shares)
 * but the merchant pays its part *less the fee returned*, and the fee returned is rounded half up on the
 * cumulative refund: when the recipients were rounded down and the fee returned was rounded down too, the
 * merchant was asked a centavo more than everything the sale left it (amount_total − Σ shares − fee), and a
 * merchant holding exactly that money was refused 409 insufficient_balance although nothing was withdrawn.
 * The cap now counts the fee not yet returned (src/domain/ledger.ts `refundShares`).
 *
 * PIX fee 0.99 % rounded half up (99 on 10 000), PIX available at once.
 */

let server: TestServer
let api: Client
const V1 = "/public/v1"
const BANK = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }

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

const paidPix = async (key: string, amount: number, split: ReadonlyArray<unknown>) => {
  const created = await api.post(
    `${V1}/transactions`,
    { method: "pix", amount, customer: customer(), split },
    { token: key }
  )
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
const ZERO = { available: 0, pending: 0, reserved: 0 }

describe("a split sale whose merchant keeps little, refunded in two pieces from its own money", () => {
  it.each([
    // Merchant keeps 10 centavos net (10 000 − 9 891 − 99). A refund of 9 542: the recipient floor(9 542 × 9 891
    // / 10 000) = 9 437, the merchant 105 less the fee returned round(99 × 0.9542) = 94, i.e. 11 of its 10.
    { share: 9_891, keeps: 10, first: 9_542 },
    // Merchant keeps nothing (shares = amount_total − fee, allowed by CONTRACT-v1 §8): a refund of 333 asks it
    // 333 − 329 − round(3.2967) = 1 centavo of the 0 the sale left it.
    { share: 9_901, keeps: 0, first: 333 }
  ])(
    "share $share (merchant keeps $keeps): refund $first then the rest, both 200, everyone back at zero",
    async ({ share, keeps, first }) => {
      const { key } = await signup(api)
      const sub = await subaccount(key)
      const hash = await paidPix(key, 10_000, [{ subaccount_id: sub, amount: share }])
      expect(await balance(key)).toEqual({ available: keeps, pending: 0, reserved: 0 })
      expect(await balance(key, sub)).toEqual({ available: share, pending: 0, reserved: 0 })

      const piece = await api.post(`${V1}/transactions/${hash}/refund`, { amount: first }, { token: key })
      expect(piece.status, piece.text).toBe(200)
      const rest = await api.post(`${V1}/transactions/${hash}/refund`, {}, { token: key })
      expect(rest.status, rest.text).toBe(200)
      expect(rest.body.data.refunded_amount).toBe(10_000)
      expect([await balance(key), await balance(key, sub)]).toEqual([ZERO, ZERO])
      expect((await checkLedger(server.databaseUrl)).filter((d) => d.what.includes(hash))).toEqual([])
    }
  )
})
