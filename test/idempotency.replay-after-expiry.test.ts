import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { cardBody, CARDS, newOrder, PROCESS } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * CONTRACT §6: a completed request replayed with the same key and body answers the original status and
 * body. On /api the process body is decoded (card expiry, birthdate checked against `new Date()`) before
 * the key's stored reply is looked at, so a replay sent after the card's expiry month had ended — a client
 * retrying across midnight of the month's last day — answered 400 instead of the charge it made; the
 * envelope now answers the stored reply (src/http/shared/idempotency.ts `replayedAhead`).
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
  vi.useRealTimers()
  await server?.close()
})

describe("replay of a completed /api card charge after the card's month ended", () => {
  it("answers the stored 201 (Idempotent-Replayed), not 400 on the card's expiry", async () => {
    const now = new Date()
    // São Paulo's current month and year: the card is good through the end of it.
    const [y, m] = new Intl.DateTimeFormat("en-CA", {
      timeZone: "America/Sao_Paulo",
      year: "numeric",
      month: "2-digit"
    })
      .format(now)
      .split("-")
    const { amount, orderId } = await newOrder(api, key)
    const body = cardBody(orderId, amount, CARDS.visa, {
      cardExpirationMonth: m,
      cardExpirationYear: y!.slice(2)
    })
    const idem = randomUUID()
    const first = await api.post(PROCESS, body, { key, headers: { "idempotency-key": idem } })
    expect(first.status, first.text).toBe(201)

    // The client's retry arrives after the month turned (well within the key's 24 hours in the database).
    const nextMonth = new Date(Date.UTC(Number(y), Number(m), 2, 12))
    vi.useFakeTimers({ toFake: ["Date"] })
    vi.setSystemTime(nextMonth)
    const replay = await api.post(PROCESS, body, { key, headers: { "idempotency-key": idem } })
    vi.useRealTimers()

    expect(replay.status, replay.text).toBe(201)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.text).toBe(first.text)
  })
})
