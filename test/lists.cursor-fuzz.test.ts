import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Keyset cursors of the /api lists (src/http/shared/keysetCursor.ts) naming an instant PostgreSQL refuses as
 * ::timestamptz (an offset past ±15:59, the year 0) are a 400 naming `cursor`, not a 500 (CONTRACT §4: "No
 * input ever produces a 500"; docs/webhooks.md "Events"); and the lists' date bounds at their extremes.
 */

let server: TestServer
let api: Client
let key: string
let token: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  const merchant = await signup(api)
  key = merchant.key
  token = merchant.token
})
afterAll(async () => {
  await server?.close()
})

const forged = (list: string, at: string, id: string) =>
  Buffer.from(JSON.stringify([list, at, id])).toString("base64url")

describe("keyset cursor fuzz", () => {
  // Offsets past PostgreSQL's ±15:59 and the year 0 pass the decoder's checks (JavaScript accepts them).
  const ats = ["2026-11-25 10:00:00+20", "2026-11-25 10:00:00-18:30", "0000-06-15 10:00:00+00"]
  for (const at of ats) {
    it(`GET /api/events with a cursor at ${at}: 400 naming cursor, never 500`, async () => {
      const reply = await api.get(`/api/events?cursor=${forged("events", at, randomUUID())}`, { key })
      expect(reply.status, reply.text).toBe(400)
      expect(reply.text).toContain("cursor")
    })
    it(`GET /api/request-log with a cursor at ${at}: 400 naming cursor, never 500`, async () => {
      const reply = await api.get(`/api/request-log?cursor=${forged("request_log", at, "42")}`, { key })
      expect(reply.status, reply.text).toBe(400)
      expect(reply.text).toContain("cursor")
    })
    it(`GET /api/dashboard/transactions with a cursor at ${at}: 400 naming cursor, never 500`, async () => {
      const reply = await api.get(`/api/dashboard/transactions?cursor=${forged("transactions", at, randomUUID())}`, {
        token
      })
      expect(reply.status, reply.text).toBe(400)
      expect(reply.text).toContain("cursor")
    })
  }
})

describe("createdFrom / createdTo extremes on the /api lists", () => {
  const bounds = [
    "createdFrom=0000-01-01",
    "createdTo=0000-01-01",
    "createdFrom=0000-06-15T10:00:00Z",
    "createdTo=9999-12-31",
    "createdFrom=2026-11-25T10:00:00%2B20:00"
  ]
  for (const list of ["/api/events", "/api/transactions", "/api/customers", "/api/orders"]) {
    for (const bound of bounds) {
      it(`GET ${list}?${bound}: 200 or 400, never 500`, async () => {
        const reply = await api.get(`${list}?${bound}`, { key })
        expect([200, 400], reply.text).toContain(reply.status)
      })
    }
  }
})
