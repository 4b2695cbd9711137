import { Effect } from "effect"
import type { EventKind } from "../../src/domain/events.ts"
import { EventPayloadsLive } from "../../src/http/shared/EventPayloadsLive.ts"
import { EventPayloads } from "../../src/ports/EventPayloads.ts"
import { freshCpf } from "./foundation.ts"
import type pg from "pg"
import { client, type Client, signup } from "./http.ts"

/**
 * Small fixtures of the webhooks and jobs end-to-end tests: a merchant with a webhook, an order per
 * charge, PIX / BOLETO / CARD charges, the sandbox, refunds, delivery records, polling, and direct
 * reads of the outbox tables and graphile-worker's queue.
 */

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs` with `what`. */
export const until = async <T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  intervalMs = 100
): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${timeoutMs} ms${last === undefined ? "" : ` (last error: ${String(last)})`}`
      )
    await sleep(intervalMs)
  }
}

/** A valid CPF, unique per call (computed independently of the product). */
export const randomCpf = freshCpf

export const ADDRESS = {
  postal_code: "01310100",
  street: "Avenida Paulista",
  number: "1000",
  neighborhood: "Bela Vista",
  city: "São Paulo",
  state: "SP"
} as const

export const MOBILE = "11912345678"
const FUTURE_YEAR = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, "0")

/** CONTRACT §7 sandbox acquirer cards used here. */
export const CARDS = {
  approved: "4242424242424242",
  declined: "4000000000000002",
  processingError: "4000000000000119",
  // Approved, with a chargeback the sandbox acquirer announces (src/adapters/providers/sandbox/testCards.ts).
  chargeback: "4000000000000259"
} as const

export interface Merchant {
  readonly api: Client
  readonly key: string
  readonly accountId: string
}

export const newMerchant = async (baseUrl: string, name = "Loja Webhooks"): Promise<Merchant> => {
  const api = client(baseUrl)
  const account = await signup(api, name)
  return { api, key: account.key, accountId: account.accountId }
}

/** Registers (or replaces) the merchant's webhook URL; returns the upsert body. */
export const registerWebhook = async (
  m: Merchant,
  url: string
): Promise<{ url: string; secret: string; createdAt: string; updatedAt: string }> => {
  const reply = await m.api.post("/api/webhooks/upsert", { url }, { key: m.key })
  if (reply.status !== 201 && reply.status !== 200) throw new Error(`webhook upsert: ${reply.status} ${reply.text}`)
  return reply.body
}

/** A PENDING order of a fresh customer; returns its id and the customer's CPF. */
export const newOrder = async (m: Merchant, amount: number) => {
  const document = randomCpf()
  const customer = await m.api.post(
    "/api/customers",
    { name: "Maria da Silva", email: "maria@example.com", document, phone: MOBILE },
    { key: m.key }
  )
  if (customer.status !== 201 && customer.status !== 200)
    throw new Error(`customer: ${customer.status} ${customer.text}`)
  const order = await m.api.post("/api/orders", { customerId: customer.body.id, amount }, { key: m.key })
  if (order.status !== 201) throw new Error(`order: ${order.status} ${order.text}`)
  return { orderId: order.body.id as string, document }
}

const base = (orderId: string, amount: number, document: string) => ({
  orderId,
  amount,
  buyerDoc: document,
  buyerCellNumber: MOBILE,
  buyerAddress: { ...ADDRESS }
})

export interface Charge {
  readonly transactionId: string
  readonly orderId: string
  readonly amount: number
  /** The process reply body. */
  readonly body: any
  readonly status: number
}

const PROCESS = "/api/payment-gateway/process"

export const chargePix = async (m: Merchant, amount = 10_000): Promise<Charge> => {
  const { document, orderId } = await newOrder(m, amount)
  const reply = await m.api.post(PROCESS, { ...base(orderId, amount, document), method: "PIX" }, { key: m.key })
  if (reply.status !== 201) throw new Error(`PIX: ${reply.status} ${reply.text}`)
  return { transactionId: reply.body.transactionId, orderId, amount, body: reply.body, status: reply.status }
}

export const chargeBoleto = async (m: Merchant, amount = 10_000): Promise<Charge> => {
  const { document, orderId } = await newOrder(m, amount)
  const reply = await m.api.post(PROCESS, { ...base(orderId, amount, document), method: "BOLETO" }, { key: m.key })
  if (reply.status !== 201) throw new Error(`BOLETO: ${reply.status} ${reply.text}`)
  return { transactionId: reply.body.transactionId, orderId, amount, body: reply.body, status: reply.status }
}

/** A CARD charge with a raw card: 201 CAPTURED when approved, 422 (with `transactionId`) when declined or failed. */
export const chargeCard = async (m: Merchant, pan: string = CARDS.approved, amount = 10_000): Promise<Charge> => {
  const { document, orderId } = await newOrder(m, amount)
  const reply = await m.api.post(
    PROCESS,
    {
      ...base(orderId, amount, document),
      method: "CARD",
      installments: 1,
      cardHolderName: "MARIA DA SILVA",
      cardNumber: pan,
      cardExpirationMonth: "12",
      cardExpirationYear: FUTURE_YEAR,
      cardSecurityCode: "123",
      cardBrand: "Visa",
      buyerBirthdate: "1990-05-17"
    },
    { key: m.key }
  )
  if (reply.status !== 201 && reply.status !== 422) throw new Error(`CARD: ${reply.status} ${reply.text}`)
  if (typeof reply.body?.transactionId !== "string")
    throw new Error(`CARD without transactionId: ${reply.status} ${reply.text}`)
  return { transactionId: reply.body.transactionId, orderId, amount, body: reply.body, status: reply.status }
}

export const sandboxPay = (m: Merchant, transactionId: string) =>
  m.api.post(`/api/sandbox/transactions/${transactionId}/pay`, undefined, { key: m.key })
export const sandboxExpire = (m: Merchant, transactionId: string) =>
  m.api.post(`/api/sandbox/transactions/${transactionId}/expire`, undefined, { key: m.key })

export const refund = async (m: Merchant, transactionId: string, amount?: number) => {
  const reply = await m.api.post(
    "/api/payment-gateway/refund",
    { transactionId, ...(amount === undefined ? {} : { amount }) },
    { key: m.key }
  )
  if (reply.status !== 200 && reply.status !== 201) throw new Error(`refund: ${reply.status} ${reply.text}`)
  return reply.body
}

export const transaction = async (m: Merchant, transactionId: string) => {
  const reply = await m.api.get(`/api/transactions/${transactionId}`, { key: m.key })
  if (reply.status !== 200) throw new Error(`transaction: ${reply.status} ${reply.text}`)
  return reply.body
}

export const order = async (m: Merchant, orderId: string) => {
  const reply = await m.api.get(`/api/orders/${orderId}`, { key: m.key })
  if (reply.status !== 200) throw new Error(`order: ${reply.status} ${reply.text}`)
  return reply.body
}

export interface DeliveryRecord {
  readonly deliveryId: string
  readonly event: string
  readonly status: "SUCCESS" | "FAILED" | "PENDING"
  readonly httpStatus: number | null
  readonly attemptedAt: string | null
  readonly nextRetryAt: string | null
  readonly attempts: number
  readonly createdAt: string
}

/** GET /api/webhooks/deliveries (with an optional query string such as "?status=SUCCESS"). */
export const deliveries = async (m: Merchant, query = ""): Promise<ReadonlyArray<DeliveryRecord>> => {
  const reply = await m.api.get(`/api/webhooks/deliveries${query}`, { key: m.key })
  if (reply.status !== 200) throw new Error(`deliveries: ${reply.status} ${reply.text}`)
  return reply.body.deliveries
}

// ---- direct database reads (assertions only) ----

export interface EventRow {
  readonly id: string
  readonly type: string
  readonly payload: any
}

/**
 * The events of a transaction with the body their interface gives them: the outbox stores a neutral
 * snapshot (docs/architecture.md), so the payload is built here as the delivery builds it.
 */
export const eventRows = async (db: pg.Pool, transactionId: string): Promise<ReadonlyArray<EventRow>> =>
  (
    await db.query<{ id: string; type: string; kind: string; origin: "v1" | "v2"; snapshot: any; created_at: Date }>(
      "select id, type, kind, origin, snapshot, created_at from events where " +
        "transaction_id = $1 order by created_at, type",
      [transactionId]
    )
  ).rows.map((row) => ({
    id: row.id,
    type: row.type,
    payload: JSON.parse(
      renderEvent(
        {
          name: row.type,
          kind: row.kind as EventKind,
          origin: row.origin,
          snapshot: row.snapshot,
          createdAt: row.created_at
        },
        false
      ) // test-mode accounts: the body of a test event
    )
  }))

const renderEvent = Effect.runSync(Effect.map(EventPayloads, (p) => p.render).pipe(Effect.provide(EventPayloadsLive)))

export interface DeliveryRow {
  readonly id: string
  readonly event: string
  readonly status: string
  readonly attempts: number
  readonly http_status: number | null
  readonly last_error: string | null
  readonly event_id: string
}

export const deliveryRows = async (db: pg.Pool, transactionId: string): Promise<ReadonlyArray<DeliveryRow>> =>
  (
    await db.query<DeliveryRow>(
      `select d.id, d.event, d.status, d.attempts, d.http_status, d.last_error, d.event_id
     from webhook_deliveries d join events e on e.id = d.event_id
     where e.transaction_id = $1 order by d.created_at, d.event`,
      [transactionId]
    )
  ).rows

/** The delivery row of one event of a transaction (throws when not exactly one). */
export const deliveryOf = async (
  db: pg.Pool,
  transactionId: string,
  event: string
): Promise<DeliveryRow | undefined> => {
  const rows = (await deliveryRows(db, transactionId)).filter((d) => d.event === event)
  if (rows.length > 1) throw new Error(`${rows.length} ${event} deliveries for ${transactionId}`)
  return rows[0]
}

export interface JobRow {
  readonly id: string
  readonly task_identifier: string
  readonly key: string | null
  readonly run_at: Date
  readonly locked_at: Date | null
  readonly locked_by: string | null
  readonly attempts: number
  readonly payload: any
}

/** graphile-worker's queue (its private table, for the payload), filtered by `where` over those columns. */
export const jobs = async (
  db: pg.Pool,
  where = "true",
  params: ReadonlyArray<unknown> = []
): Promise<ReadonlyArray<JobRow>> =>
  (
    await db.query<JobRow>(
      `select * from (
       select j.id, t.identifier as task_identifier, j.key, j.run_at, j.locked_at, j.locked_by, j.attempts, j.payload
       from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     ) q where ${where} order by id`,
      [...params]
    )
  ).rows.map((row) => ({ ...row, id: String(row.id) }))
