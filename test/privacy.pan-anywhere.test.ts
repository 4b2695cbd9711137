import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { cardBody, freshCpf, newOrder, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { luhnCheckDigit } from "../src/domain/card.ts"

/**
 * The gateway's own copies of a request (the request log, the idempotency store, the error envelope) never
 * hold a full card number, whichever way it came in: in the URL's path or query, as a JSON key, as an
 * Idempotency-Key or an X-Request-Id, or in free text written with its expiry or CVV after it
 * (docs/decisions.md "Card data in the gateway's copies"). Each test sends its own Luhn-valid Visa number
 * (never the charge's card) and then reads every row of every table of the test's database as text.
 */

let serial = 500
/** A fresh Luhn-valid Visa number, 16 digits. */
const freshPan = () => {
  const body = `455636${String(serial++).padStart(9, "0")}`
  return body + luhnCheckDigit(body)
}
const grouped = (pan: string, separator = " ") => pan.replace(/(\d{4})(?=\d)/g, `$1${separator}`)

let server: TestServer
let api: Client
let m: Awaited<ReturnType<typeof signup>>

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  m = await signup(api, "Loja Privacidade")
})
afterAll(async () => {
  await server?.close()
})

/** "schema.table.column" of every text-like column whose value contains `needle` (digits only compared). */
const columnsHolding = async (needle: string) => {
  const { rows: cols } = await server.db.query<{ s: string; t: string; c: string }>(
    `select c.table_schema s, c.table_name t, c.column_name c
       from information_schema.columns c
       join information_schema.tables t using (table_schema, table_name)
      where c.table_schema in ('public', 'graphile_worker') and t.table_type = 'BASE TABLE'
        and c.data_type in ('text', 'jsonb', 'json', 'character varying', 'bytea')`
  )
  const found: Array<string> = []
  for (const { s, t, c } of cols) {
    const { rows } = await server.db.query<{ n: number }>(
      `select count(*)::int n from "${s}"."${t}"
        where regexp_replace("${c}"::text, '[^0-9]', '', 'g') like '%' || $1 || '%'`,
      [needle]
    )
    if (rows[0]!.n > 0) found.push(`${s}.${t}.${c}`)
  }
  return found.sort()
}

/** The request log's line of this request, once written (lines are written every 200 ms). */
const logged = (requestId: string) =>
  eventually(async () => {
    const { rows } = await server.db.query<{ path: string; idempotency_key: string | null; body: string | null }>(
      "select path, idempotency_key, body from request_log where account_id = $1 and request_id = $2",
      [m.accountId, requestId]
    )
    return rows[0]
  }, 10_000)

const rid = () => `rid-${randomUUID()}`
const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" })

describe("the request log keeps no card number that came outside a card field", () => {
  it("a card number in a query parameter's value, plain or grouped by `+`, is kept as [REDACTED]", async () => {
    const [plain, spaced] = [freshPan(), freshPan()]
    const requestId = rid()
    // Declared parameters: authenticated, refused by the route (a malformed cursor), so logged. An unknown
    // parameter's name is refused before authentication, with nothing logged (see the envelope's test below).
    const reply = await api.get(`/public/v1/transactions?cursor=${plain}&document=${grouped(spaced, "+")}`, {
      token: m.key,
      headers: { "x-request-id": requestId }
    })
    expect(reply.status, reply.text).toBe(400)
    const line = await logged(requestId)
    expect(line.path).toBe("/public/v1/transactions?cursor=[REDACTED]&document=[REDACTED]")
    for (const pan of [plain, spaced]) expect(await columnsHolding(pan)).toEqual([])
  })

  it("a card number in a path segment, plain or percent-encoded with spaces, is kept as [REDACTED]", async () => {
    const [plain, encoded] = [freshPan(), freshPan()]
    const first = rid()
    const second = rid()
    const one = await api.get(`/public/v1/transactions/${plain}`, { token: m.key, headers: { "x-request-id": first } })
    const two = await api.get(`/public/v1/transactions/${grouped(encoded, "%20")}`, {
      token: m.key,
      headers: { "x-request-id": second }
    })
    expect([one.status, two.status], one.text + two.text).toEqual([404, 404])
    expect((await logged(first)).path).toBe("/public/v1/transactions/[REDACTED]")
    expect((await logged(second)).path).toBe("/public/v1/transactions/[REDACTED]")
    for (const pan of [plain, encoded]) expect(await columnsHolding(pan)).toEqual([])
  })

  it("an Idempotency-Key holding a card number or an API key is refused with 400, and neither is stored", async () => {
    const pan = freshPan()
    const order = await newOrder(api, m.key)
    const refusals = []
    for (const key of [pan, `retry-${m.key}`]) {
      const requestId = rid()
      const reply = await api.post(PROCESS, cardBody(order.orderId, order.amount), {
        key: m.key,
        headers: { "idempotency-key": key, "x-request-id": requestId }
      })
      expect(reply.status, reply.text).toBe(400)
      expect(reply.body).toMatchObject({
        code: "validation_failed",
        message: "Idempotency-Key must not hold a card number or a secret",
        errors: [{ field: "Idempotency-Key", message: "must not hold a card number or a secret" }]
      })
      refusals.push((await logged(requestId)).idempotency_key)
    }
    expect(refusals).toEqual(["[REDACTED]", "[REDACTED]"])
    const { rows } = await server.db.query("select key from idempotency_keys where account_id = $1", [m.accountId])
    expect(rows.map((r) => r.key).filter((k) => k.includes(pan) || k.includes(m.key))).toEqual([])
    expect(await columnsHolding(pan)).toEqual([])
    // The order is still there to pay: nothing was charged. A key holding a number that passes Luhn but is no
    // card number the gateway takes (1732740110124, a time in milliseconds) is accepted, and logged redacted.
    const requestId = rid()
    const paid = await api.post(PROCESS, cardBody(order.orderId, order.amount), {
      key: m.key,
      headers: { "idempotency-key": "order-1732740110124", "x-request-id": requestId }
    })
    expect(paid.status, paid.text).toBe(201)
    expect((await logged(requestId)).idempotency_key).toBe("order-[REDACTED]")
  })

  it("an X-Request-Id holding a card number is not taken: the request gets a fresh id", async () => {
    const pan = freshPan()
    const reply = await api.get("/api/transactions", { key: m.key, headers: { "x-request-id": pan } })
    expect(reply.status, reply.text).toBe(200)
    const requestId = reply.headers.get("x-request-id")!
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    await logged(requestId)
    expect(await columnsHolding(pan)).toEqual([])
  })

  it("a card number used as a JSON key is kept as [REDACTED], as one in a value is", async () => {
    const pan = freshPan()
    const requestId = rid()
    const reply = await api.post(
      "/public/v1/transactions",
      { method: "pix", amount: 1000, customer: customer(), [pan]: "123" },
      { token: m.key, headers: { "x-request-id": requestId } }
    )
    expect(reply.status, reply.text).toBe(400)
    expect(JSON.parse((await logged(requestId)).body!)).toMatchObject({ "[REDACTED]": "123" })
    expect(await columnsHolding(pan)).toEqual([])
  })

  it("a card number in free text is redacted with its expiry or CVV, grouped by spaces, dots or NBSP", async () => {
    const pans = [freshPan(), freshPan(), freshPan(), freshPan()]
    const requestId = rid()
    // `installments` as text makes it a 400, so nothing but the request log keeps the body.
    const reply = await api.post(
      "/public/v1/transactions",
      {
        method: "pix",
        amount: 1000,
        installments: "x",
        customer: customer(),
        comment: `cartão ${grouped(pans[0]!)} 12/30`,
        metadata: { a: `${pans[1]} 987`, b: grouped(pans[2]!, "."), c: grouped(pans[3]!, "\u00a0") }
      },
      { token: m.key, headers: { "x-request-id": requestId } }
    )
    expect(reply.status).toBe(400)
    const body = JSON.parse((await logged(requestId)).body!)
    expect({ comment: body.comment, metadata: body.metadata }).toEqual({
      comment: "cartão [REDACTED]",
      metadata: { a: "[REDACTED]", b: "[REDACTED]", c: "[REDACTED]" }
    })
    for (const pan of pans) expect(await columnsHolding(pan)).toEqual([])
  })
})

describe("an error envelope does not echo a card number back", () => {
  it("in a query parameter's name, a body field's name, or an unknown route's path", async () => {
    const [a, b, c] = [freshPan(), freshPan(), freshPan()]
    const query = await api.get(`/public/v1/transactions?${a}=1`, { token: m.key })
    const field = await api.post(
      "/public/v1/transactions",
      { method: "pix", amount: 1000, customer: customer(), [b]: 1 },
      { token: m.key }
    )
    const route = await api.get(`/api/cards/${c}`, { key: m.key })
    expect([query.status, field.status, route.status]).toEqual([400, 400, 404])
    expect({ query: query.body.errors, field: field.body.errors, route: route.body.message }).toEqual({
      query: [{ field: "[REDACTED]", message: "[REDACTED] is not a known query parameter" }],
      field: [{ field: "[REDACTED]", message: "[REDACTED] is not a known field" }],
      route: "Route GET /api/cards/[REDACTED] not found"
    })
    for (const [text, pan] of [
      [query.text, a],
      [field.text, b],
      [route.text, c]
    ] as const)
      expect(text).not.toContain(pan)
  })

  it("in the value a 400 quotes: a card number followed by its CVV or expiry is not quoted", async () => {
    // Each whole run (16 digits and the CVV or expiry) fails Luhn: only the card number's own digits pass.
    const sent = [
      ["4556360000005007", "987"],
      ["4556360000005015", "123"],
      ["4556360000005023", "12/30"]
    ] as const
    for (const [pan, tail] of sent) {
      const reply = await api.post(
        "/public/v1/transactions",
        { method: "pix", amount: 1000, installments: `${pan} ${tail}`, customer: customer() },
        { token: m.key }
      )
      expect(reply.status).toBe(400)
      expect(reply.body.errors?.[0]).toEqual({ field: "installments", message: "installments: Expected number" })
      expect(reply.text).not.toContain(pan)
    }
  })
})
