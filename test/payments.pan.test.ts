import { randomUUID } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { AppConfigFrom, type AppConfigShape } from "../src/config/AppConfig.ts"
import { roleLayer } from "../src/Roles.ts"
import { createTestDatabase } from "./support/database.ts"
import { client, type Client, signup } from "./support/http.ts"
import {
  CARDS,
  cardBody,
  eventually,
  expectError,
  newOrder,
  PROCESS,
  rawCard,
  REFUND,
  tokenCardBody,
  TOKENIZE,
  tokenizeBody
} from "./support/payments.ts"
import { testConfig } from "./support/server.ts"

/**
 * PCI: after card charges (raw and tokenized, approved, declined, failed, blocked), tokenizations,
 * a refund and webhook deliveries, no full card number and no security code is anywhere in the
 * database, in the service's logs (every level), in webhook payloads or in API responses.
 */

// Unusual security codes, so that finding one of them means a CVV leaked.
const CVVS = ["9731", "8642", "7539", "6248", "5817"] as const
const PANS = [
  CARDS.visa,
  CARDS.visa2,
  CARDS.mastercard,
  CARDS.elo,
  CARDS.declined,
  CARDS.insufficientFunds,
  CARDS.expired,
  CARDS.incorrectCvc,
  CARDS.processingError,
  CARDS.fraud
]

/** Every encoding under which a PAN could be stored or printed. */
const panForms = (pan: string) => [
  pan,
  Buffer.from(pan, "utf8").toString("hex"),
  Buffer.from(pan, "utf8").toString("base64"),
  pan.replace(/(\d{4})(?=\d)/g, "$1 "),
  pan.replace(/(\d{4})(?=\d)/g, "$1-")
]

/**
 * A CVV as a value of its own: a JSON string, a tuple field, a key=value, not a run of digits inside a longer token.
 */
const cvvPattern = (cvv: string) => new RegExp(`(^|[\\s,("':=\\\\])${cvv}($|[\\s,)"'\\\\])`)

interface Leak {
  readonly where: string
  readonly what: string
}

const findLeaks = (where: string, text: string): Array<Leak> => {
  const leaks: Array<Leak> = []
  const lower = text.toLowerCase()
  for (const pan of PANS) {
    for (const form of panForms(pan))
      if (lower.includes(form.toLowerCase())) leaks.push({ where, what: `PAN ${pan} as ${form}` })
  }
  for (const cvv of CVVS) if (cvvPattern(cvv).test(text)) leaks.push({ where, what: `CVV ${cvv}` })
  for (const [label, keyword] of [
    ["cvv key", /"(cvv|cvc|securityCode|cardSecurityCode|security_code)"\s*:/i],
    ["pan key", /"(pan|cardNumber|card_number)"\s*:/i]
  ] as const) {
    if (keyword.test(text)) leaks.push({ where, what: label })
  }
  return leaks
}

// ---- The service, with every log level on and its output captured -------------------------------

const logs: Array<string> = []
const record = (...args: ReadonlyArray<unknown>) => {
  logs.push(
    args
      .map((a) =>
        typeof a === "string"
          ? a
          : (() => {
              try {
                return JSON.stringify(a) ?? String(a)
              } catch {
                return String(a)
              }
            })()
      )
      .join(" ")
  )
}

let runtime: ManagedRuntime.ManagedRuntime<unknown, unknown> | undefined
let db: pg.Pool
let config: AppConfigShape
let api: Client
let receiver: Server
const webhookBodies: Array<string> = []
const responses: Array<string> = []

beforeAll(async () => {
  for (const method of ["log", "info", "warn", "error", "debug", "trace", "dir", "group", "groupCollapsed"] as const) {
    vi.spyOn(console, method).mockImplementation(record)
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream)
    vi.spyOn(stream, "write").mockImplementation(((chunk: unknown, ...rest: Array<never>) => {
      record(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"))
      return original(chunk as string, ...rest)
    }) as typeof stream.write)
  }

  receiver = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => {
      webhookBodies.push(Buffer.concat(chunks).toString("utf8"))
      response.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))

  // As startTestServer, but logging at every level in JSON (as `npm start` does) instead of warnings only.
  const databaseUrl = await createTestDatabase()
  config = await testConfig(databaseUrl, { rateLimitPerMinute: 100_000, logLevel: "all" })
  runtime = ManagedRuntime.make(
    roleLayer("all").pipe(
      Layer.provide(AppConfigFrom(config)),
      Layer.provide(Layer.merge(Logger.minimumLogLevel(LogLevel.All), Logger.json))
    )
  ) as ManagedRuntime.ManagedRuntime<unknown, unknown>
  await runtime.runPromise(Effect.void)
  db = new pg.Pool({ connectionString: databaseUrl, max: 3 })
  api = client(`http://127.0.0.1:${config.port}`)
})

afterAll(async () => {
  await db?.end()
  await runtime?.dispose()
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()))
  vi.restoreAllMocks()
})

const post = async (path: string, body: unknown, key: string, headers: Record<string, string> = {}) => {
  const reply = await api.post(path, body, { key, headers })
  responses.push(`${path} ${reply.status} ${reply.text}`)
  return reply
}

describe("no card number or security code is kept or shown", () => {
  it("drives card traffic of every kind", async () => {
    const { key } = await signup(api)
    const hook = await api.post(
      "/api/webhooks/upsert",
      { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` },
      { key }
    )
    expect(hook.status, hook.text).toBe(201)

    // Raw approved charges, one with an Idempotency-Key (its record keeps the response) and a refund.
    const approved: Array<[string, string]> = [
      [CARDS.visa, CVVS[0]],
      [CARDS.mastercard, CVVS[1]],
      [CARDS.elo, CVVS[2]]
    ]
    let refundable = ""
    for (const [pan, cvv] of approved) {
      const { amount, orderId } = await newOrder(api, key)
      const reply = await post(PROCESS, cardBody(orderId, amount, pan, rawCard(pan, cvv)), key, {
        "idempotency-key": randomUUID()
      })
      expect(reply.status, reply.text).toBe(201)
      expect(reply.body.card).toEqual({ brand: expect.any(String), last4: pan.slice(-4) })
      refundable = reply.body.transactionId
    }
    expect((await post(REFUND, { transactionId: refundable, amount: 100 }, key)).status).toBe(200)

    // Raw refused charges: declined, insufficient funds, expired, wrong CVV, acquirer failure, antifraud.
    const refused = [
      CARDS.declined,
      CARDS.insufficientFunds,
      CARDS.expired,
      CARDS.incorrectCvc,
      CARDS.processingError,
      CARDS.fraud
    ]
    for (const [i, pan] of refused.entries()) {
      const { amount, orderId } = await newOrder(api, key)
      expectError(
        await post(PROCESS, cardBody(orderId, amount, pan, rawCard(pan, CVVS[i % CVVS.length])), key, {
          "idempotency-key": randomUUID()
        }),
        422
      )
    }

    // Rejected by validation with the card in the body (brand mismatch): not echoed back either.
    const invalid = await newOrder(api, key)
    expectError(
      await post(
        PROCESS,
        cardBody(invalid.orderId, invalid.amount, CARDS.visa2, { ...rawCard(CARDS.visa2, CVVS[3]), cardBrand: "Elo" }),
        key
      ),
      400
    )

    // Tokenizations (one rejected at verification) and charges with the tokens.
    const customerOrder = await newOrder(api, key)
    const tokenized = await post(
      TOKENIZE,
      tokenizeBody(customerOrder.customerId, CARDS.visa2, { securityCode: CVVS[3] }),
      key
    )
    expect(tokenized.status, tokenized.text).toBe(201)
    expectError(
      await post(TOKENIZE, tokenizeBody(customerOrder.customerId, CARDS.incorrectCvc, { securityCode: CVVS[4] }), key),
      422,
      "incorrect_cvc"
    )
    const declining = await post(
      TOKENIZE,
      tokenizeBody(customerOrder.customerId, CARDS.declined, { securityCode: CVVS[4] }),
      key
    )
    expect(declining.status, declining.text).toBe(201)
    const charged = await post(
      PROCESS,
      tokenCardBody(customerOrder.orderId, customerOrder.amount, tokenized.body.cardToken),
      key,
      { "idempotency-key": randomUUID() }
    )
    expect(charged.status, charged.text).toBe(201)
    const next = await newOrder(api, key)
    // A token of another customer is 400, and the declining token on its own customer's order 422.
    expectError(await post(PROCESS, tokenCardBody(next.orderId, next.amount, declining.body.cardToken), key), 400)

    // The detail of a card transaction shows only brand and last four.
    const detail = await api.get(`/api/payment-gateway/transaction/${charged.body.transactionId}`, { key })
    expect(detail.status, detail.text).toBe(200)
    expect(detail.body.card).toEqual({ brand: "Visa", last4: CARDS.visa2.slice(-4) })
    responses.push(detail.text)
    responses.push((await api.get("/api/transactions", { key })).text)

    // Let the worker deliver every webhook, so their payloads are in the receiver and the jobs' tables.
    await eventually(
      async () => {
        const { rows } = await db.query<{ n: number }>(
          "select count(*)::int as n from webhook_deliveries where status <> 'SUCCESS'"
        )
        return rows[0]!.n === 0 ? true : undefined
      },
      20_000,
      250
    )
    const delivered = await db.query<{ n: number }>(
      "select count(*)::int as n from webhook_deliveries where status = 'SUCCESS'"
    )
    expect(delivered.rows[0]!.n).toBeGreaterThanOrEqual(10)
    expect(webhookBodies.length).toBe(delivered.rows[0]!.n)
  })

  it("the detector finds what it looks for", () => {
    const hex = Buffer.from(CARDS.elo).toString("hex")
    expect(findLeaks("t", `(1,"\\\\x${hex}",x)`)).not.toEqual([])
    expect(findLeaks("t", `{"holder": "X", "cvv": "${CVVS[0]}"}`).map((l) => l.what)).toEqual([
      `CVV ${CVVS[0]}`,
      "cvv key"
    ])
    expect(findLeaks("t", `(abc,${CVVS[1]},def)`)).toEqual([{ where: "t", what: `CVV ${CVVS[1]}` }])
    expect(findLeaks("t", `card 4242 4242 4242 4242`)).not.toEqual([])
    // …and not digits that merely contain a CVV inside a longer value.
    expect(findLeaks("t", `(0f${CVVS[0]}ab-${CVVS[1]}-1${CVVS[2]}, 2025-01-01 10:00:00.${CVVS[3]}+00)`)).toEqual([])
  })

  it("in no table of the database, under any encoding", async () => {
    const { rows: tables } = await db.query<{ schema: string; name: string }>(
      `select table_schema as schema, table_name as name from information_schema.tables
       where table_schema in ('public', 'graphile_worker') order by 1, 2`
    )
    const names = tables.map((t) => `${t.schema}.${t.name}`)
    // The scan reaches the tables where card data would land.
    for (const expected of [
      "public.cards",
      "public.transactions",
      "public.idempotency_keys",
      "public.events",
      "public.refunds",
      "public.webhook_deliveries"
    ]) {
      expect(names).toContain(expected)
    }
    expect(names.some((n) => n.startsWith("graphile_worker."))).toBe(true)

    const leaks: Array<Leak> = []
    let scanned = 0
    for (const t of tables) {
      const { rows } = await db.query<{ row: string }>(`select t::text as row from "${t.schema}"."${t.name}" t`)
      for (const { row } of rows) {
        scanned += 1
        leaks.push(...findLeaks(`${t.schema}.${t.name}`, row))
      }
    }
    expect(scanned).toBeGreaterThan(50)
    // The vault holds the cards, encrypted: three tokenized cards' last four only.
    const cards = await db.query<{ last4: string }>("select last4 from cards order by last4")
    expect(cards.rows.map((r) => r.last4).sort()).toEqual([CARDS.visa2.slice(-4), CARDS.declined.slice(-4)].sort())
    expect(leaks).toEqual([])
  })

  it("in no log line, at any level", () => {
    // The capture works: the service's own start-up lines are in it.
    expect(logs.join("\n")).toMatch(/applied migrations/)
    const leaks = logs.flatMap((line, i) => findLeaks(`log line ${i}`, line))
    expect(leaks).toEqual([])
  })

  it("in no API response and no webhook payload", () => {
    expect(responses.length).toBeGreaterThan(10)
    expect(responses.flatMap((r, i) => findLeaks(`response ${i}`, r))).toEqual([])
    expect(webhookBodies.length).toBeGreaterThan(0)
    expect(webhookBodies.flatMap((b, i) => findLeaks(`webhook ${i}`, b))).toEqual([])
  })
})
