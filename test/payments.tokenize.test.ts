import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import {
  ADDRESS,
  badCheckDigit,
  CARDS,
  CNPJ,
  createCustomer,
  createOrder,
  expectError,
  expectFieldErrors,
  newOrder,
  orderStatus,
  PROCESS,
  tokenCardBody,
  TOKENIZE,
  tokenizeBody,
  UUID
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * POST /api/payment-gateway/tokenize-card and charging a `cardToken` (interface-v2, CONTRACT §7):
 * verification at the acquirer, field rules, the token's owner (account and customer), and a token
 * standing for the card whatever raw card fields come with it.
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

const tokenize = async (customerId: string, pan: string = CARDS.visa, overrides: Record<string, unknown> = {}) => {
  const reply = await api.post(TOKENIZE, tokenizeBody(customerId, pan, overrides), { key })
  expect(reply.status, reply.text).toBe(201)
  return reply.body.cardToken as string
}

describe("tokenize-card", () => {
  it("201 with an opaque cardToken that carries no card number", async () => {
    const customer = await createCustomer(api, key)
    const reply = await api.post(TOKENIZE, tokenizeBody(customer.id, CARDS.mastercard), { key })
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body).toEqual({ cardToken: expect.any(String) })
    const token: string = reply.body.cardToken
    expect(token.length).toBeGreaterThanOrEqual(16)
    for (const leak of [
      CARDS.mastercard,
      CARDS.mastercard.slice(0, 12),
      Buffer.from(CARDS.mastercard).toString("base64"),
      Buffer.from(CARDS.mastercard).toString("hex")
    ]) {
      expect(token).not.toContain(leak)
    }
    expect(reply.text).not.toContain(CARDS.mastercard)
    // The same card tokenized twice gets two unrelated tokens.
    const again = await tokenize(customer.id, CARDS.mastercard)
    expect(again).not.toBe(token)
  })

  it("422 expired_card and incorrect_cvc at tokenization, nothing stored", async () => {
    const customer = await createCustomer(api, key)
    expectError(await api.post(TOKENIZE, tokenizeBody(customer.id, CARDS.expired), { key }), 422, "expired_card")
    expectError(await api.post(TOKENIZE, tokenizeBody(customer.id, CARDS.incorrectCvc), { key }), 422, "incorrect_cvc")
    const stored = await server.db.query("select count(*)::int as n from cards where customer_id = $1", [customer.id])
    expect(stored.rows[0].n).toBe(0)
  })

  it("400 naming each malformed field", async () => {
    const customer = await createCustomer(api, key)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ doc: badCheckDigit("52998224725") }, "doc"],
      [{ doc: CNPJ }, "doc"],
      [{ doc: "123" }, "doc"],
      [{ holderName: "" }, "holderName"],
      [{ cardNumber: "4242424242424241" }, "cardNumber"],
      [{ cardNumber: "42424242" }, "cardNumber"],
      [{ brand: "Mastercard" }, "brand"],
      [{ expirationMonth: "13" }, "expirationMonth"],
      [{ securityCode: "12" }, "securityCode"],
      [{ securityCode: "12a" }, "securityCode"],
      [{ birthdate: "2999-01-01" }, "birthdate"],
      [{ birthdate: "17/05/1990" }, "birthdate"],
      [{ cellNumber: "(11) 3456-7890" }, "cellNumber"],
      [{ address: { ...ADDRESS, state: "XX" } }, "address.state"],
      [{ address: { ...ADDRESS, postal_code: "1234567" } }, "address.postal_code"],
      [{ customerId: "not-a-uuid" }, "customerId"]
    ]
    for (const [overrides, field] of cases) {
      expectFieldErrors(await api.post(TOKENIZE, tokenizeBody(customer.id, CARDS.visa, overrides), { key }), [field])
    }
    const expired = expectError(
      await api.post(TOKENIZE, tokenizeBody(customer.id, CARDS.visa, { expirationMonth: "01", expirationYear: "20" }), {
        key
      }),
      400
    )
    expect(expired.errors?.[0]?.field).toMatch(/^expiration(Month|Year)$/)

    for (const field of [
      "customerId",
      "doc",
      "holderName",
      "cardNumber",
      "brand",
      "expirationMonth",
      "expirationYear",
      "securityCode",
      "birthdate",
      "cellNumber",
      "address"
    ]) {
      const body = tokenizeBody(customer.id)
      delete body[field]
      expectFieldErrors(await api.post(TOKENIZE, body, { key }), [field])
    }
    const stored = await server.db.query("select count(*)::int as n from cards where customer_id = $1", [customer.id])
    expect(stored.rows[0].n).toBe(0)
  })

  it("an unknown customer, or another account's: 404", async () => {
    expectError(await api.post(TOKENIZE, tokenizeBody("00000000-0000-4000-8000-000000000000"), { key }), 404)
    const other = await signup(api, "Outra Loja")
    const theirs = await createCustomer(api, other.key)
    expectError(await api.post(TOKENIZE, tokenizeBody(theirs.id), { key }), 404)
  })
})

describe("charging a cardToken", () => {
  it("201 CAPTURED with no raw card fields, no birthdate and no buyerDoc; the order PAID", async () => {
    const { amount, customerId, orderId } = await newOrder(api, key, 15_000)
    const cardToken = await tokenize(customerId, CARDS.elo)
    const body = tokenCardBody(orderId, amount, cardToken, { installments: 6 })
    expect(body).not.toHaveProperty("buyerBirthdate")
    expect(body).not.toHaveProperty("cardNumber")
    const reply = await api.post(PROCESS, body, { key })
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body).toEqual({
      transactionId: expect.stringMatching(UUID),
      status: "CAPTURED",
      method: "CARD",
      amount: 15_000,
      installments: 6,
      card: { brand: "Elo", last4: CARDS.elo.slice(-4) }
    })
    expect(await orderStatus(api, key, orderId)).toBe("PAID")

    // The token is reusable for the same customer's next order.
    const next = await createOrder(api, key, customerId, 2_000)
    const second = await api.post(PROCESS, tokenCardBody(next, 2_000, cardToken), { key })
    expect(second.status, second.text).toBe(201)
    expect(second.body.status).toBe("CAPTURED")
  })

  it("the token stands for the card it was made from: a declining card still declines", async () => {
    const { amount, customerId, orderId } = await newOrder(api, key)
    // card_declined is seen only at the charge, not at the zero-amount verification.
    const cardToken = await tokenize(customerId, CARDS.declined)
    const body = expectError(
      await api.post(PROCESS, tokenCardBody(orderId, amount, cardToken), { key }),
      422,
      "card_declined"
    )
    expect(body.transactionId).toMatch(UUID)
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")
  })

  it("raw card fields alongside a token are ignored, whatever they hold", async () => {
    const { amount, customerId, orderId } = await newOrder(api, key)
    const cardToken = await tokenize(customerId, CARDS.visa2)
    const reply = await api.post(
      PROCESS,
      tokenCardBody(orderId, amount, cardToken, {
        cardHolderName: "",
        cardNumber: "1234",
        cardExpirationMonth: "99",
        cardExpirationYear: "00",
        cardSecurityCode: "x"
      }),
      { key }
    )
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.card).toEqual({ brand: "Visa", last4: CARDS.visa2.slice(-4) })
  })

  it("an unknown cardBrand alongside a token is ignored too", async () => {
    const { amount, customerId, orderId } = await newOrder(api, key)
    const cardToken = await tokenize(customerId, CARDS.visa2)
    const reply = await api.post(PROCESS, tokenCardBody(orderId, amount, cardToken, { cardBrand: "Amex" }), { key })
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.card).toEqual({ brand: "Visa", last4: CARDS.visa2.slice(-4) })
  })

  it("the token's other rules still apply: installments, amount", async () => {
    const { amount, customerId, orderId } = await newOrder(api, key)
    const cardToken = await tokenize(customerId)
    expectFieldErrors(
      await api.post(PROCESS, tokenCardBody(orderId, amount, cardToken, { installments: 13 }), { key }),
      ["installments"]
    )
    expectFieldErrors(await api.post(PROCESS, tokenCardBody(orderId, amount + 1, cardToken), { key }), ["amount"])
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")
  })

  it("an unknown token, or one of another account: 404", async () => {
    const { amount, orderId } = await newOrder(api, key)
    expectError(await api.post(PROCESS, tokenCardBody(orderId, amount, "card_doesnotexist"), { key }), 404)

    const other = await signup(api, "Outra Loja")
    const theirCustomer = await createCustomer(api, other.key)
    const reply = await api.post(TOKENIZE, tokenizeBody(theirCustomer.id), { key: other.key })
    expect(reply.status, reply.text).toBe(201)
    expectError(await api.post(PROCESS, tokenCardBody(orderId, amount, reply.body.cardToken), { key }), 404)
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")
    const count = await server.db.query("select count(*)::int as n from transactions where order_id = $1", [orderId])
    expect(count.rows[0].n).toBe(0)
  })

  it("a token of another customer than the order's: 400 naming cardToken", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const stranger = await createCustomer(api, key)
    const cardToken = await tokenize(stranger.id)
    expectFieldErrors(await api.post(PROCESS, tokenCardBody(orderId, amount, cardToken), { key }), ["cardToken"])
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")
  })
})
