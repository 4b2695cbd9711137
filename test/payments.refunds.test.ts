import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import {
  boletoBody,
  CARDS,
  cardBody,
  eventually,
  expectError,
  expectFieldErrors,
  freshCpf,
  ISO_UTC,
  newOrder,
  orderStatus,
  pixBody,
  PROCESS,
  REFUND,
  transactionStatus,
  v1Card
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * POST /api/payment-gateway/refund: every row of interface-v2's refund table (States and
 * transitions), the BOLETO full-only rule, ownership, and the balance bound under concurrency.
 */

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, boletoConfirmationDelaySeconds: 0 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const refund = (body: Record<string, unknown>) => api.post(REFUND, body, { key })

/** A CAPTURED card transaction of `amount` on a fresh order. */
const capturedCard = async (amount = 10_000) => {
  const { orderId } = await newOrder(api, key, amount)
  const reply = await api.post(PROCESS, cardBody(orderId, amount, CARDS.visa), { key })
  expect(reply.status, reply.text).toBe(201)
  expect(reply.body.status).toBe("CAPTURED")
  return { orderId, transactionId: reply.body.transactionId as string, amount }
}

/** A PENDING PIX or BOLETO transaction on a fresh order. */
const pending = async (method: "PIX" | "BOLETO", amount = 10_000) => {
  const { orderId } = await newOrder(api, key, amount)
  const reply = await api.post(PROCESS, method === "PIX" ? pixBody(orderId, amount) : boletoBody(orderId, amount), {
    key
  })
  expect(reply.status, reply.text).toBe(201)
  return { orderId, transactionId: reply.body.transactionId as string, amount }
}

const sandboxPay = (transactionId: string) =>
  api.post(`/api/sandbox/transactions/${transactionId}/pay`, undefined, { key })

const refundRows = async (transactionId: string) =>
  (
    await server.db.query<{ amount: string; status: string }>(
      "select amount::text, status from refunds where transaction_id = $1 order by created_at, amount",
      [transactionId]
    )
  ).rows

describe("refund table", () => {
  it("CAPTURED, no amount: REFUNDED, refundedAmount = amount, order CANCELLED, no further refund", async () => {
    const { amount, orderId, transactionId } = await capturedCard(10_000)
    const before = Date.now()
    const reply = await refund({ transactionId })
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toEqual({
      transactionId,
      status: "REFUNDED",
      method: "CARD",
      amount,
      refundedAmount: amount,
      refundedAt: expect.stringMatching(ISO_UTC)
    })
    const at = Date.parse(reply.body.refundedAt)
    expect(at).toBeGreaterThanOrEqual(before - 1000)
    expect(at).toBeLessThanOrEqual(Date.now() + 1000)
    expect(await transactionStatus(api, key, transactionId)).toBe("REFUNDED")
    expect(await orderStatus(api, key, orderId)).toBe("CANCELLED")

    // REFUNDED → 409, with or without an amount.
    expectError(await refund({ transactionId }), 409)
    expectError(await refund({ transactionId, amount: 1 }), 409)
    expect(await refundRows(transactionId)).toEqual([{ amount: "10000", status: "SUCCEEDED" }])
  })

  it(
    "partial, partial, final partial: PARTIAL_REFUND, PARTIAL_REFUND, " + "REFUNDED with a cumulative refundedAmount",
    async () => {
      const { orderId, transactionId } = await capturedCard(10_000)
      const first = await refund({ transactionId, amount: 3_000 })
      expect(first.status, first.text).toBe(200)
      expect(first.body).toMatchObject({
        transactionId,
        status: "PARTIAL_REFUND",
        method: "CARD",
        amount: 10_000,
        refundedAmount: 3_000
      })
      expect(await orderStatus(api, key, orderId)).toBe("PAID")

      const second = await refund({ transactionId, amount: 5_000 })
      expect(second.status, second.text).toBe(200)
      expect(second.body).toMatchObject({ status: "PARTIAL_REFUND", amount: 10_000, refundedAmount: 8_000 })
      expect(await transactionStatus(api, key, transactionId)).toBe("PARTIAL_REFUND")
      expect(await orderStatus(api, key, orderId)).toBe("PAID")

      const third = await refund({ transactionId, amount: 2_000 })
      expect(third.status, third.text).toBe(200)
      expect(third.body).toMatchObject({ status: "REFUNDED", amount: 10_000, refundedAmount: 10_000 })
      expect(await transactionStatus(api, key, transactionId)).toBe("REFUNDED")
      expect(await orderStatus(api, key, orderId)).toBe("CANCELLED")
      expectError(await refund({ transactionId, amount: 1 }), 409)

      const detail = await api.get(`/api/payment-gateway/transaction/${transactionId}`, { key })
      expect(detail.body.refundedAmount).toBe(10_000)
      expect(await refundRows(transactionId)).toEqual([
        { amount: "3000", status: "SUCCEEDED" },
        { amount: "5000", status: "SUCCEEDED" },
        { amount: "2000", status: "SUCCEEDED" }
      ])
    }
  )

  it("partial, then a refund without amount refunds the remaining balance", async () => {
    const { orderId, transactionId } = await capturedCard(10_000)
    expect((await refund({ transactionId, amount: 4_000 })).body.refundedAmount).toBe(4_000)
    const rest = await refund({ transactionId })
    expect(rest.status, rest.text).toBe(200)
    expect(rest.body).toMatchObject({ status: "REFUNDED", amount: 10_000, refundedAmount: 10_000 })
    expect(await orderStatus(api, key, orderId)).toBe("CANCELLED")
    expect((await refundRows(transactionId)).map((r) => r.amount)).toEqual(["4000", "6000"])
  })

  it("PIX paid through the sandbox: partial refund, then the rest", async () => {
    const { orderId, transactionId } = await pending("PIX", 8_000)
    const paid = await sandboxPay(transactionId)
    expect(paid.status, paid.text).toBe(200)
    expect(paid.body).toMatchObject({ id: transactionId, orderId, method: "PIX", amount: 8_000, status: "PAID" })
    expect(await orderStatus(api, key, orderId)).toBe("PAID")

    const partial = await refund({ transactionId, amount: 2_500, reason: "item devolvido" })
    expect(partial.status, partial.text).toBe(200)
    expect(partial.body).toEqual({
      transactionId,
      status: "PARTIAL_REFUND",
      method: "PIX",
      amount: 8_000,
      refundedAmount: 2_500,
      reason: "item devolvido",
      refundedAt: expect.stringMatching(ISO_UTC)
    })
    const rest = await refund({ transactionId })
    expect(rest.body).toMatchObject({ status: "REFUNDED", refundedAmount: 8_000 })
    expect(rest.body).not.toHaveProperty("reason")
    expect(await orderStatus(api, key, orderId)).toBe("CANCELLED")
  })

  it("PENDING (PIX, BOLETO), DECLINED, FAILED: 409, nothing recorded", async () => {
    const pix = await pending("PIX")
    const boleto = await pending("BOLETO")
    const declinedOrder = await newOrder(api, key)
    const declined = expectError(
      await api.post(PROCESS, cardBody(declinedOrder.orderId, declinedOrder.amount, CARDS.declined), { key }),
      422
    )
    const failedOrder = await newOrder(api, key)
    const failed = expectError(
      await api.post(PROCESS, cardBody(failedOrder.orderId, failedOrder.amount, CARDS.processingError), { key }),
      422
    )

    for (const transactionId of [
      pix.transactionId,
      boleto.transactionId,
      declined.transactionId!,
      failed.transactionId!
    ]) {
      expectError(await refund({ transactionId }), 409)
      expectError(await refund({ transactionId, amount: 100 }), 409)
      expect(await refundRows(transactionId)).toEqual([])
    }
    expect(await transactionStatus(api, key, pix.transactionId)).toBe("PENDING")
    expect(await transactionStatus(api, key, declined.transactionId!)).toBe("DECLINED")
  })

  it("amount above the remaining balance: 400 naming amount, the balance untouched", async () => {
    const { transactionId } = await capturedCard(10_000)
    expectFieldErrors(await refund({ transactionId, amount: 10_001 }), ["amount"])
    expect((await refund({ transactionId, amount: 6_000 })).status).toBe(200)
    expectFieldErrors(await refund({ transactionId, amount: 4_001 }), ["amount"])
    const detail = await api.get(`/api/payment-gateway/transaction/${transactionId}`, { key })
    expect(detail.body).toMatchObject({ status: "PARTIAL_REFUND", refundedAmount: 6_000 })
    expect((await refund({ transactionId, amount: 4_000 })).body).toMatchObject({
      status: "REFUNDED",
      refundedAmount: 10_000
    })
  })

  it("malformed refund bodies: 400 naming the field", async () => {
    const { transactionId } = await capturedCard(1_000)
    expectFieldErrors(await refund({ transactionId, amount: 0 }), ["amount"])
    expectFieldErrors(await refund({ transactionId, amount: -5 }), ["amount"])
    expectFieldErrors(await refund({ transactionId, amount: 1.5 }), ["amount"])
    expectFieldErrors(await refund({ transactionId, amount: "100" }), ["amount"])
    expectFieldErrors(await refund({ amount: 100 }), ["transactionId"])
    expectFieldErrors(await refund({ transactionId: "nope" }), ["transactionId"])
    expectFieldErrors(await refund({ transactionId, reason: 42 }), ["reason"])
    expect(await transactionStatus(api, key, transactionId)).toBe("CAPTURED")
  })

  it("unknown transaction, or another account's: 404", async () => {
    expectError(await refund({ transactionId: "00000000-0000-4000-8000-000000000000" }), 404)
    const { transactionId } = await capturedCard(1_000)
    const other = await signup(api, "Outra Loja")
    expectError(await api.post(REFUND, { transactionId }, { key: other.key }), 404)
    expectError(await api.post(REFUND, { transactionId, amount: 10 }, { key: other.key }), 404)
    expect(await transactionStatus(api, key, transactionId)).toBe("CAPTURED")
  })
})

describe("BOLETO: full refund only", () => {
  it("paid at the sandbox bank (202), confirmed PAID by the worker, partial 400, full REFUNDED", async () => {
    const { orderId, transactionId } = await pending("BOLETO", 5_000)
    const paid = await sandboxPay(transactionId)
    expect(paid.status, paid.text).toBe(202)
    expect(paid.body).toMatchObject({ id: transactionId, orderId, method: "BOLETO", amount: 5_000, status: "PENDING" })

    await eventually(
      async () => ((await transactionStatus(api, key, transactionId)) === "PAID" ? true : undefined),
      15_000,
      250
    )
    expect(await orderStatus(api, key, orderId)).toBe("PAID")

    const partial = expectError(await refund({ transactionId, amount: 1_000 }), 400)
    expect(partial.errors?.map((e) => e.field)).toEqual(["amount"])
    // interface-v2 Errors: a 400's `message` names the field.
    expect(partial.message, "the message names the field").toContain("amount")
    expect(await transactionStatus(api, key, transactionId)).toBe("PAID")
    const full = await refund({ transactionId, reason: "cliente desistiu" })
    expect(full.status, full.text).toBe(200)
    expect(full.body).toMatchObject({
      transactionId,
      status: "REFUNDED",
      method: "BOLETO",
      amount: 5_000,
      refundedAmount: 5_000,
      reason: "cliente desistiu"
    })
    expect(await orderStatus(api, key, orderId)).toBe("CANCELLED")
  })
})

describe("concurrency", () => {
  it("20 concurrent partial refunds of 700 on 10000: exactly 14 succeed, never more than was paid", async () => {
    const { transactionId } = await capturedCard(10_000)
    const replies = await Promise.all(Array.from({ length: 20 }, () => refund({ transactionId, amount: 700 })))
    const ok = replies.filter((r) => r.status === 200)
    for (const r of replies) expect([200, 400, 409], r.text).toContain(r.status)
    for (const r of replies.filter((r) => r.status !== 200)) expectError(r, r.status)
    const succeeded = ok.length * 700
    expect(succeeded).toBeLessThanOrEqual(10_000)
    expect(ok.length).toBe(14)

    const detail = await api.get(`/api/payment-gateway/transaction/${transactionId}`, { key })
    expect(detail.body.refundedAmount).toBe(succeeded)
    expect(detail.body.status).toBe("PARTIAL_REFUND")
    const cumulative = ok.map((r) => r.body.refundedAmount as number).sort((a, b) => a - b)
    expect(cumulative).toEqual(Array.from({ length: 14 }, (_, i) => (i + 1) * 700))
    for (const r of ok) {
      expect(r.body.refundedAmount).toBeLessThanOrEqual(detail.body.refundedAmount)
      expect(r.body.status).toBe("PARTIAL_REFUND")
    }
    const rows = await refundRows(transactionId)
    expect(rows.filter((r) => r.status === "SUCCEEDED").length).toBe(14)
    const reserved = await server.db.query(
      "select refund_reserved::int as r, refunded_amount::int as a from transactions where id = $1",
      [transactionId]
    )
    expect(reserved.rows[0]).toEqual({ r: 0, a: 9_800 })
  })

  it("10 concurrent full refunds: exactly one 200, the others 409", async () => {
    const { orderId, transactionId } = await capturedCard(10_000)
    const replies = await Promise.all(Array.from({ length: 10 }, () => refund({ transactionId })))
    const ok = replies.filter((r) => r.status === 200)
    expect(ok.length).toBe(1)
    expect(ok[0]!.body).toMatchObject({ status: "REFUNDED", refundedAmount: 10_000 })
    for (const r of replies.filter((r) => r.status !== 200)) expectError(r, 409)
    expect(await refundRows(transactionId)).toEqual([{ amount: "10000", status: "SUCCEEDED" }])
    expect(await orderStatus(api, key, orderId)).toBe("CANCELLED")
  })
})

describe('a v1 card charge with interest on /api (docs/api.md "Both interfaces, one transaction")', () => {
  it("shows amount as what was charged, so a full refund leaves refundedAmount equal to it", async () => {
    const amount = 10_000
    const created = await api.post(
      "/public/v1/transactions",
      {
        method: "credit_card",
        amount,
        installments: 3,
        customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" },
        card: v1Card()
      },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const { hash, amount_total: total } = created.body.data as { hash: string; amount_total: number }
    // 3 installments at the default 2.99 % a month (CONTRACT-v1 §4): the Price table, computed here again.
    const i = 0.0299
    const each = Math.round((amount * i * (1 + i) ** 3) / ((1 + i) ** 3 - 1))
    expect(total).toBe(each * 3)
    const before = await api.get(`/api/payment-gateway/transaction/${hash}`, { key })
    expect(before.status, before.text).toBe(200)
    expect(before.body).toMatchObject({ amount: total, refundedAmount: 0, status: "CAPTURED" })
    // A full refund on /api, by the amount /api shows: all of it.
    const refunded = await refund({ transactionId: hash, amount: before.body.amount })
    expect(refunded.status, refunded.text).toBe(200)
    expect(refunded.body).toMatchObject({ status: "REFUNDED", amount: total, refundedAmount: total })
    const after = await api.get(`/api/payment-gateway/transaction/${hash}`, { key })
    expect(after.body).toMatchObject({ amount: total, refundedAmount: total, status: "REFUNDED" })
    // The transaction itself (interface-v2's GET /api/transactions/{id}, which a webhook's receiver fetches to
    // confirm it) and the list say the same amount; they showed the amount before interest.
    const read = await api.get(`/api/transactions/${hash}`, { key })
    expect(read.status, read.text).toBe(200)
    expect(read.body).toMatchObject({ amount: total, status: "REFUNDED" })
    const listed = await api.get(`/api/transactions`, { key })
    expect(listed.body.find((t: { id: string }) => t.id === hash)).toMatchObject({ amount: total })
  })
})
