import { eventually as poll, freshCpf } from "./foundation.ts"
import { expect } from "vitest"
import type { Client, Reply } from "./http.ts"

/**
 * Fixtures of the payments end-to-end tests (test/payments.*.test.ts): customers and orders, valid
 * process / tokenize bodies per method, the sandbox test cards of CONTRACT §7, and error assertions.
 */

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** CONTRACT §7 sandbox acquirer test cards. */
export const CARDS = {
  visa: "4242424242424242",
  visa2: "4111111111111111",
  mastercard: "5555555555554444",
  elo: "6362970000457013",
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
  expired: "4000000000000069",
  incorrectCvc: "4000000000000127",
  processingError: "4000000000000119",
  fraud: "4100000000000019",
  chargeback: "4000000000000259"
} as const

export type Brand = "Visa" | "Mastercard" | "Elo"

/** The brand of each test card, from the table of CONTRACT §7 (not from the product's BIN code). */
export const brandOf = (pan: string): Brand => (pan === CARDS.elo ? "Elo" : pan.startsWith("5") ? "Mastercard" : "Visa")

/** A card expiry that is always in the future: December, three years from now. */
export const FUTURE_YEAR = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, "0")

export const ADDRESS = {
  postal_code: "01310100",
  street: "Avenida Paulista",
  number: "1000",
  neighborhood: "Bela Vista",
  city: "São Paulo",
  state: "SP"
} as const

export const MOBILE = "(11) 91234-5678"
/** A valid CNPJ (check digits 81). */
export const CNPJ = "11222333000181"

export { freshCpf }

/** The same CPF with its last check digit changed: fails validation. */
export const badCheckDigit = (doc: string) => `${doc.slice(0, -1)}${(Number(doc.slice(-1)) + 1) % 10}`

/** A fresh customer of the account (its own CPF). */
export const createCustomer = async (api: Client, key: string, document = freshCpf()) => {
  const reply = await api.post(
    "/api/customers",
    { name: "Maria da Silva", email: "maria@example.com", document, phone: MOBILE },
    { key }
  )
  if (reply.status !== 201) throw new Error(`customer: ${reply.status} ${reply.text}`)
  return { id: reply.body.id as string, document }
}

export const createOrder = async (api: Client, key: string, customerId: string, amount: number) => {
  const reply = await api.post("/api/orders", { customerId, amount }, { key })
  if (reply.status !== 201) throw new Error(`order: ${reply.status} ${reply.text}`)
  return reply.body.id as string
}

/** A PENDING order of a fresh customer. */
export const newOrder = async (api: Client, key: string, amount = 10_000) => {
  const customer = await createCustomer(api, key)
  const orderId = await createOrder(api, key, customer.id, amount)
  return { orderId, customerId: customer.id, document: customer.document, amount }
}

export const orderStatus = async (api: Client, key: string, orderId: string) => {
  const reply = await api.get(`/api/orders/${orderId}`, { key })
  expect(reply.status, reply.text).toBe(200)
  return reply.body.status as string
}

export const transactionStatus = async (api: Client, key: string, transactionId: string) => {
  const reply = await api.get(`/api/transactions/${transactionId}`, { key })
  expect(reply.status, reply.text).toBe(200)
  return reply.body.status as string
}

type Body = Record<string, unknown>

const common = (orderId: string, amount: number, buyerDoc?: string): Body => ({
  orderId,
  amount,
  ...(buyerDoc === undefined ? {} : { buyerDoc }),
  buyerCellNumber: MOBILE,
  buyerAddress: { ...ADDRESS }
})

export const pixBody = (orderId: string, amount: number, overrides: Body = {}): Body => ({
  ...common(orderId, amount, freshCpf()),
  method: "PIX",
  ...overrides
})

export const boletoBody = (orderId: string, amount: number, overrides: Body = {}): Body => ({
  ...common(orderId, amount, freshCpf()),
  method: "BOLETO",
  ...overrides
})

/** Raw card fields of a process body. */
export const rawCard = (pan: string, cvv = "123"): Body => ({
  cardHolderName: "MARIA DA SILVA",
  cardNumber: pan,
  cardExpirationMonth: "12",
  cardExpirationYear: FUTURE_YEAR,
  cardSecurityCode: cvv,
  cardBrand: brandOf(pan)
})

/** A v1 `card` object (snake_case, four-digit year) of `pan`. */
export const v1Card = (pan: string = CARDS.visa): Body => ({
  number: pan,
  holder_name: "MARIA SILVA",
  exp_month: "12",
  exp_year: String(new Date().getUTCFullYear() + 3),
  cvv: "123"
})

/** A CARD process body with a raw card (buyerDoc given, as the spec's stricter reading wants). */
export const cardBody = (orderId: string, amount: number, pan: string = CARDS.visa, overrides: Body = {}): Body => ({
  ...common(orderId, amount, freshCpf()),
  method: "CARD",
  installments: 1,
  ...rawCard(pan),
  buyerBirthdate: "1990-05-17",
  ...overrides
})

/** A CARD process body that charges a card token (no raw card fields, no birthdate). */
export const tokenCardBody = (orderId: string, amount: number, cardToken: string, overrides: Body = {}): Body => ({
  ...common(orderId, amount),
  method: "CARD",
  installments: 1,
  cardToken,
  ...overrides
})

export const tokenizeBody = (customerId: string, pan: string = CARDS.visa, overrides: Body = {}): Body => ({
  customerId,
  doc: freshCpf(),
  holderName: "MARIA DA SILVA",
  cardNumber: pan,
  brand: brandOf(pan),
  expirationMonth: "12",
  expirationYear: FUTURE_YEAR,
  securityCode: "123",
  birthdate: "1990-05-17",
  cellNumber: MOBILE,
  address: { ...ADDRESS },
  ...overrides
})

export const PROCESS = "/api/payment-gateway/process"
export const REFUND = "/api/payment-gateway/refund"
export const TOKENIZE = "/api/payment-gateway/tokenize-card"

export const STATUS_PHRASE: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  409: "Conflict",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error"
}

export interface ErrorBody {
  readonly statusCode: number
  readonly error: string
  readonly message: string
  readonly code?: string
  readonly errors?: ReadonlyArray<{ readonly field: string; readonly message: string }>
  readonly transactionId?: string
}

/** The /api error envelope of CONTRACT §4 with an exact status (and code when given). */
export const expectError = (reply: Reply, status: number, code?: string): ErrorBody => {
  expect(reply.status, reply.text).toBe(status)
  expect(reply.body, reply.text).toBeTypeOf("object")
  expect(reply.body.statusCode, reply.text).toBe(status)
  expect(reply.body.error, reply.text).toBe(STATUS_PHRASE[status])
  expect(reply.body.message, reply.text).toBeTypeOf("string")
  expect(reply.body.message.length, reply.text).toBeGreaterThan(0)
  if (code !== undefined) expect(reply.body.code, reply.text).toBe(code)
  expect(reply.headers.get("content-type") ?? "").toMatch(/^application\/json/)
  return reply.body as ErrorBody
}

/**
 * A 400 whose `errors` names exactly the fields `fields` (any order; a field may carry several
 * entries) and whose `message` names the first one listed.
 */
export const expectFieldErrors = (reply: Reply, fields: ReadonlyArray<string>): ErrorBody => {
  const body = expectError(reply, 400)
  const listed = (body.errors ?? []).map((e) => e.field)
  expect([...new Set(listed)].sort(), reply.text).toEqual([...new Set(fields)].sort())
  expect(body.message, reply.text).toContain(listed[0])
  for (const e of body.errors ?? []) expect(e.message, reply.text).toContain(e.field)
  return body
}

/** `eventually` of ./foundation.ts with the payment tests' defaults: 15 s, polled every 200 ms. */
export const eventually = <T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000, intervalMs = 200) =>
  poll(probe, timeoutMs, intervalMs)
