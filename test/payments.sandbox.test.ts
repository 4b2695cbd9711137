import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import {
  boletoBody,
  CARDS,
  cardBody,
  eventually,
  expectError,
  ISO_UTC,
  newOrder,
  orderStatus,
  pixBody,
  PROCESS,
  transactionStatus
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { defaultMoney } from "./support/config.ts"

/**
 * The sandbox endpoints of CONTRACT §7 (SANDBOX_ENABLED=true): pay and expire act as the buyer and
 * the clock would, and a transaction in the wrong state is 409.
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

const pay = (id: string, apiKey = key) => api.post(`/api/sandbox/transactions/${id}/pay`, undefined, { key: apiKey })
const expire = (id: string, apiKey = key) =>
  api.post(`/api/sandbox/transactions/${id}/expire`, undefined, { key: apiKey })

const charge = async (method: "PIX" | "BOLETO" | "CARD", amount = 3_000) => {
  const { orderId } = await newOrder(api, key, amount)
  const body =
    method === "PIX"
      ? pixBody(orderId, amount)
      : method === "BOLETO"
        ? boletoBody(orderId, amount)
        : cardBody(orderId, amount, CARDS.visa)
  const reply = await api.post(PROCESS, body, { key })
  expect(reply.status, reply.text).toBe(201)
  return { orderId, id: reply.body.transactionId as string, amount }
}

describe("pay", () => {
  it("a PENDING PIX: 200 with the Transaction PAID, the order PAID; paying it again 409", async () => {
    const { amount, id, orderId } = await charge("PIX")
    const reply = await pay(id)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toEqual({
      id,
      orderId,
      method: "PIX",
      amount,
      status: "PAID",
      createdAt: expect.stringMatching(ISO_UTC),
      updatedAt: expect.stringMatching(ISO_UTC)
    })
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
    expectError(await pay(id), 409)
    expectError(await expire(id), 409)
    expect(await transactionStatus(api, key, id)).toBe("PAID")
  })

  it("a CARD transaction: 409", async () => {
    const { id } = await charge("CARD")
    expectError(await pay(id), 409)
    expectError(await expire(id), 409)
    expect(await transactionStatus(api, key, id)).toBe("CAPTURED")
  })

  it("a BOLETO: 202 with the Transaction still PENDING", async () => {
    const { amount, id, orderId } = await charge("BOLETO")
    const reply = await pay(id)
    expect(reply.status, reply.text).toBe(202)
    expect(reply.body).toMatchObject({ id, orderId, method: "BOLETO", amount, status: "PENDING" })
  })

  it("unknown, another account's, malformed: 404, 404, 400", async () => {
    expectError(await pay("00000000-0000-4000-8000-000000000000"), 404)
    const { id } = await charge("PIX")
    const other = await signup(api, "Outra Loja")
    expectError(await pay(id, other.key), 404)
    expectError(await expire(id, other.key), 404)
    expect(await transactionStatus(api, key, id)).toBe("PENDING")
    expectError(await pay("nope"), 400)
  })
})

describe("expire", () => {
  it("a PENDING PIX: 200 FAILED, the order EXPIRED; then pay and expire 409", async () => {
    const { amount, id, orderId } = await charge("PIX")
    const reply = await expire(id)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toMatchObject({ id, orderId, method: "PIX", amount, status: "FAILED" })
    expect(await transactionStatus(api, key, id)).toBe("FAILED")
    expect(await orderStatus(api, key, orderId)).toBe("EXPIRED")
    expectError(await pay(id), 409)
    expectError(await expire(id), 409)
  })

  it("a PENDING BOLETO: 200 FAILED, the order EXPIRED", async () => {
    const { id, orderId } = await charge("BOLETO")
    const reply = await expire(id)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.status).toBe("FAILED")
    expect(await orderStatus(api, key, orderId)).toBe("EXPIRED")
  })
})

/**
 * A withdrawal is a TED, sent on business days only (docs/calendar.md): asked on a weekend or a bank
 * holiday it waits for the next business day's 00:00. The sandbox route lets that day come now. Here the
 * bank job's wait is an hour (WITHDRAWAL_DELAY_SECONDS), which the route cuts short, whatever day it is.
 */
describe("send a withdrawal", () => {
  let slow: TestServer
  let slowApi: Client
  beforeAll(async () => {
    slow = await startTestServer({
      rateLimitPerMinute: 100_000,
      money: { ...defaultMoney, withdrawalDelaySeconds: 3_600 }
    })
    slowApi = client(slow.baseUrl)
  })
  afterAll(async () => {
    await slow?.close()
  })

  const BANK = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }
  const withdrawal = async (merchant: string, account: string) => {
    const sale = await slowApi.post(
      "/public/v1/transactions",
      {
        method: "pix",
        amount: 10_000,
        customer: { name: "Maria Silva", email: "m@example.com", document: "52998224725" }
      },
      { token: merchant }
    )
    expect(sale.status, sale.text).toBe(201)
    const paid = await slowApi.post(`/api/sandbox/transactions/${sale.body.data.hash}/pay`, undefined, {
      key: merchant
    })
    expect(paid.status, paid.text).toBe(200)
    const created = await slowApi.post(
      "/public/v1/withdrawals",
      { amount: 5_000, bank_account: { ...BANK, account } },
      { token: merchant }
    )
    expect(created.status, created.text).toBe(201)
    return created.body.data.id as string
  }
  const status = async (merchant: string, id: string) =>
    (await slowApi.get(`/public/v1/withdrawals/${id}`, { token: merchant })).body.data.status
  const send = (merchant: string, id: string) =>
    slowApi.post(`/api/sandbox/withdrawals/${id}/send`, undefined, { key: merchant })

  it("a pending one: 202, then paid by the bank job at once; sent again, 200 as it is", async () => {
    const { key: merchant } = await signup(slowApi)
    const id = await withdrawal(merchant, "123456")
    // The job waits its hour: nothing moves by itself.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await status(merchant, id)).toBe("pending")
    const sent = await send(merchant, id)
    expect(sent.status, sent.text).toBe(202)
    expect(sent.body).toEqual({ id, status: "pending" })
    await eventually(async () => ((await status(merchant, id)) === "paid" ? true : undefined))
    const again = await send(merchant, id)
    expect(again.status, again.text).toBe(200)
    expect(again.body).toEqual({ id, status: "paid" })
  })

  it("one the sandbox bank refuses fails at once; unknown, another account's, malformed: 404, 404, 400", async () => {
    const { key: merchant } = await signup(slowApi)
    const id = await withdrawal(merchant, "0000000")
    expect((await send(merchant, id)).status).toBe(202)
    await eventually(async () => ((await status(merchant, id)) === "failed" ? true : undefined))
    expectError(await send(merchant, "00000000-0000-4000-8000-000000000000"), 404)
    const other = await signup(slowApi, "Outra Loja")
    expectError(await send(other.key, id), 404)
    expectError(await send(merchant, "nope"), 400)
  })
})
