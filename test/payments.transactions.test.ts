import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import {
  boletoBody,
  CARDS,
  cardBody,
  expectError,
  expectFieldErrors,
  ISO_UTC,
  newOrder,
  pixBody,
  PROCESS,
  REFUND,
  UUID
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * GET /api/transactions, GET /api/transactions/{id} (the spec's Transaction) and
 * GET /api/payment-gateway/transaction/{id} (Transaction + refundedAmount + the method's details),
 * with the real status of each kind of charge, and other accounts kept out.
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

interface Made {
  readonly id: string
  readonly orderId: string
  readonly method: "PIX" | "BOLETO" | "CARD"
  readonly amount: number
  readonly status: string
  readonly refundedAmount: number
  readonly result: Record<string, unknown>
}

/** One transaction of every status the /api shows, in a fresh account. */
const makeAll = async (apiKey: string) => {
  const made: Array<Made> = []
  const charge = async (method: Made["method"], amount: number, pan: string = CARDS.visa) => {
    const { orderId } = await newOrder(api, apiKey, amount)
    const body =
      method === "PIX"
        ? pixBody(orderId, amount)
        : method === "BOLETO"
          ? boletoBody(orderId, amount)
          : cardBody(orderId, amount, pan)
    const reply = await api.post(PROCESS, body, { key: apiKey })
    const id = (reply.body.transactionId ?? "") as string
    expect(id, reply.text).toMatch(UUID)
    return { id, orderId, reply }
  }
  const add = (m: Omit<Made, "refundedAmount"> & { refundedAmount?: number }) => made.push({ refundedAmount: 0, ...m })

  const pix = await charge("PIX", 1_100)
  add({ id: pix.id, orderId: pix.orderId, method: "PIX", amount: 1_100, status: "PENDING", result: pix.reply.body })
  const boleto = await charge("BOLETO", 1_200)
  add({
    id: boleto.id,
    orderId: boleto.orderId,
    method: "BOLETO",
    amount: 1_200,
    status: "PENDING",
    result: boleto.reply.body
  })
  const card = await charge("CARD", 1_300, CARDS.mastercard)
  add({
    id: card.id,
    orderId: card.orderId,
    method: "CARD",
    amount: 1_300,
    status: "CAPTURED",
    result: card.reply.body
  })
  const declined = await charge("CARD", 1_400, CARDS.declined)
  add({
    id: declined.id,
    orderId: declined.orderId,
    method: "CARD",
    amount: 1_400,
    status: "DECLINED",
    result: declined.reply.body
  })
  const failed = await charge("CARD", 1_500, CARDS.processingError)
  add({
    id: failed.id,
    orderId: failed.orderId,
    method: "CARD",
    amount: 1_500,
    status: "FAILED",
    result: failed.reply.body
  })

  const paid = await charge("PIX", 1_600)
  expect((await api.post(`/api/sandbox/transactions/${paid.id}/pay`, undefined, { key: apiKey })).status).toBe(200)
  add({ id: paid.id, orderId: paid.orderId, method: "PIX", amount: 1_600, status: "PAID", result: paid.reply.body })

  const expired = await charge("PIX", 1_700)
  expect((await api.post(`/api/sandbox/transactions/${expired.id}/expire`, undefined, { key: apiKey })).status).toBe(
    200
  )
  add({
    id: expired.id,
    orderId: expired.orderId,
    method: "PIX",
    amount: 1_700,
    status: "FAILED",
    result: expired.reply.body
  })

  const refunded = await charge("CARD", 1_800, CARDS.elo)
  expect((await api.post(REFUND, { transactionId: refunded.id }, { key: apiKey })).status).toBe(200)
  add({
    id: refunded.id,
    orderId: refunded.orderId,
    method: "CARD",
    amount: 1_800,
    status: "REFUNDED",
    refundedAmount: 1_800,
    result: refunded.reply.body
  })

  const partial = await charge("CARD", 1_900, CARDS.visa2)
  expect((await api.post(REFUND, { transactionId: partial.id, amount: 400 }, { key: apiKey })).status).toBe(200)
  add({
    id: partial.id,
    orderId: partial.orderId,
    method: "CARD",
    amount: 1_900,
    status: "PARTIAL_REFUND",
    refundedAmount: 400,
    result: partial.reply.body
  })
  return made
}

const transactionShape = (m: Made) => ({
  id: m.id,
  orderId: m.orderId,
  method: m.method,
  amount: m.amount,
  status: m.status,
  createdAt: expect.stringMatching(ISO_UTC),
  updatedAt: expect.stringMatching(ISO_UTC)
})

let made: Array<Made>
let other: { key: string }
beforeAll(async () => {
  made = await makeAll(key)
  other = await signup(api, "Outra Loja")
})

describe("GET /api/transactions", () => {
  it("an account without transactions gets []", async () => {
    const reply = await api.get("/api/transactions", { key: other.key })
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toEqual([])
  })

  it("lists exactly the account's transactions, each a Transaction with its real status", async () => {
    const reply = await api.get("/api/transactions", { key })
    expect(reply.status, reply.text).toBe(200)
    expect(Array.isArray(reply.body)).toBe(true)
    const byId = new Map((reply.body as Array<Record<string, unknown>>).map((t) => [t.id as string, t]))
    expect([...byId.keys()].sort()).toEqual(made.map((m) => m.id).sort())
    for (const m of made) {
      const t = byId.get(m.id)!
      expect(t).toEqual(transactionShape(m))
      expect(Date.parse(t.updatedAt as string)).toBeGreaterThanOrEqual(Date.parse(t.createdAt as string))
    }
    expect(new Set(made.map((m) => m.status))).toEqual(
      new Set(["PENDING", "CAPTURED", "DECLINED", "FAILED", "PAID", "REFUNDED", "PARTIAL_REFUND"])
    )
  })

  it("another account's list does not show them", async () => {
    const mine = await newOrder(api, other.key)
    const reply = await api.post(PROCESS, pixBody(mine.orderId, mine.amount), { key: other.key })
    expect(reply.status).toBe(201)
    const list = await api.get("/api/transactions", { key: other.key })
    expect(list.body.map((t: { id: string }) => t.id)).toEqual([reply.body.transactionId])
  })
})

describe("GET /api/transactions/{id}", () => {
  it("each transaction as a Transaction", async () => {
    for (const m of made) {
      const reply = await api.get(`/api/transactions/${m.id}`, { key })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual(transactionShape(m))
    }
  })

  it("a refund moves updatedAt", async () => {
    const m = made.find((x) => x.status === "REFUNDED")!
    const t = (await api.get(`/api/transactions/${m.id}`, { key })).body
    expect(Date.parse(t.updatedAt)).toBeGreaterThan(Date.parse(t.createdAt))
  })

  it("another account's, an unknown one: 404; a malformed id: 400", async () => {
    for (const m of made) expectError(await api.get(`/api/transactions/${m.id}`, { key: other.key }), 404)
    expectError(await api.get("/api/transactions/00000000-0000-4000-8000-000000000000", { key }), 404)
    expectFieldErrors(await api.get("/api/transactions/not-a-uuid", { key }), ["transactionId"])
  })
})

describe("GET /api/payment-gateway/transaction/{id}", () => {
  it("Transaction + refundedAmount + the method's details", async () => {
    for (const m of made) {
      const reply = await api.get(`/api/payment-gateway/transaction/${m.id}`, { key })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toMatchObject({ ...transactionShape(m), refundedAmount: m.refundedAmount })
      switch (m.method) {
        case "PIX":
          expect(reply.body.pix).toEqual(m.result.pix)
          expect(reply.body).not.toHaveProperty("boleto")
          expect(reply.body).not.toHaveProperty("card")
          break
        case "BOLETO":
          expect(reply.body.boleto).toEqual(m.result.boleto)
          expect(reply.body).not.toHaveProperty("pix")
          break
        case "CARD": {
          const pan = {
            1300: CARDS.mastercard,
            1400: CARDS.declined,
            1500: CARDS.processingError,
            1800: CARDS.elo,
            1900: CARDS.visa2
          }[m.amount]!
          const brand = pan === CARDS.mastercard ? "Mastercard" : pan === CARDS.elo ? "Elo" : "Visa"
          expect(reply.body.card).toEqual({ brand, last4: pan.slice(-4) })
          expect(reply.text).not.toContain(pan)
          expect(reply.body).not.toHaveProperty("pix")
          break
        }
      }
    }
  })

  it("paidAt is set on paid transactions only", async () => {
    for (const m of made) {
      const { body } = await api.get(`/api/payment-gateway/transaction/${m.id}`, { key })
      if (["CAPTURED", "PAID", "REFUNDED", "PARTIAL_REFUND"].includes(m.status))
        expect(body.paidAt, m.status).toMatch(ISO_UTC)
      else expect(body.paidAt, m.status).toBeNull()
    }
  })

  it("the PIX QR and the boleto PDF of the details still open", async () => {
    const pix = made.find((m) => m.method === "PIX" && m.status === "PENDING")!
    const boleto = made.find((m) => m.method === "BOLETO")!
    const p = (await api.get(`/api/payment-gateway/transaction/${pix.id}`, { key })).body
    const b = (await api.get(`/api/payment-gateway/transaction/${boleto.id}`, { key })).body
    const qr = await fetch(p.pix.qrCodeUrl)
    expect([qr.status, qr.headers.get("content-type")]).toEqual([200, "image/png"])
    const pdf = await fetch(b.boleto.pdfUrl)
    expect([pdf.status, pdf.headers.get("content-type")]).toEqual([200, "application/pdf"])
  })

  it("another account's, an unknown one: 404", async () => {
    for (const m of made)
      expectError(await api.get(`/api/payment-gateway/transaction/${m.id}`, { key: other.key }), 404)
    expectError(await api.get("/api/payment-gateway/transaction/00000000-0000-4000-8000-000000000000", { key }), 404)
  })
})
