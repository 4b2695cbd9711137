import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CPFS, client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * JSON numbers and keys that JSON.parse reads as something other than what was sent (docs/input.md
 * "Numbers and keys JSON.parse would change"). hostile.fuzz-findings refuses `1e400` in metadata because
 * the merchant's value would come back changed without a word; the same holds for a number that
 * underflows to 0 (`1e-400`), an integer beyond 2^53 (rounded to the nearest double), and a key sent
 * twice (the last one silently won, so two readers of the same body — a proxy, a log, the gateway — saw
 * different charges). Each was accepted (201) and stored altered; now a 400 naming the field, nothing stored.
 */
let server: TestServer
let api: Client
let m: Awaited<ReturnType<typeof signup>>
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 1_000_000 })
  api = client(server.baseUrl)
  m = await signup(api, "Loja Numeros")
}, 120_000)
afterAll(async () => {
  await server?.close()
})

const customer = JSON.stringify({ name: "Maria", email: "m@example.com", document: CPFS[1] })
const fields = (body: any): Array<string> => (body?.errors ?? []).map((e: { field: string }) => e.field)
const count = async (table: string) =>
  Number((await server.db.query(`select count(*)::int as n from ${table}`)).rows[0].n)

/** A 400 naming `field`, or else the value echoed exactly as sent (never a silent change). */
const refusedOrKept = async (
  reply: { status: number; text: string; body: any },
  field: string,
  echoed: () => Promise<string>,
  sent: string
) => {
  if (reply.status === 400) {
    expect(fields(reply.body), reply.text).toContain(field)
    return
  }
  expect(reply.status, reply.text).toBeLessThan(300)
  expect(await echoed(), `${field} was accepted (${reply.status}) and stored altered`).toBe(sent)
}

describe("POST /public/v1/transactions metadata numbers JSON.parse changes", () => {
  for (const n of ["1e-400", "9007199254740993", "12345678901234567890"]) {
    it(`metadata.n = ${n}: 400 naming metadata.n, or kept exactly (not rounded)`, async () => {
      const raw = `{"method":"pix","amount":1000,"customer":${customer},"metadata":{"n":${n}}}`
      const reply = await api.request("POST", "/public/v1/transactions", undefined, { token: m.key, raw })
      await refusedOrKept(
        reply,
        "metadata.n",
        async () =>
          (await server.db.query("select metadata->>'n' as n from transactions where id = $1", [reply.body.data.hash]))
            .rows[0].n,
        n
      )
    })
  }
})

describe("payment links' metadata integers past 2^53", () => {
  const raw = `{"name":"x","amount":100,"payment_methods":["pix"],"metadata":{"n":9007199254740993}}`
  it("POST /public/v1/payment_links metadata.n = 2^53+1: 400 naming metadata.n, or kept exactly", async () => {
    const reply = await api.request("POST", "/public/v1/payment_links", undefined, { token: m.key, raw })
    await refusedOrKept(reply, "metadata.n", async () => JSON.stringify(reply.body.data.metadata.n), "9007199254740993")
  })
  it("POST /api/dashboard/payment-links metadata.n = 2^53+1: 400 naming metadata.n, or kept exactly", async () => {
    const reply = await api.request("POST", "/api/dashboard/payment-links", undefined, { token: m.token, raw })
    await refusedOrKept(reply, "metadata.n", async () => JSON.stringify(reply.body.metadata.n), "9007199254740993")
  })
})

describe("a key sent twice in a body: the last silently wins", () => {
  it("POST /public/v1/transactions with amount 1000 and amount 2000: 400 naming amount, nothing charged", async () => {
    const before = await count("transactions")
    const raw = `{"method":"pix","amount":1000,"amount":2000,"customer":${customer}}`
    const reply = await api.request("POST", "/public/v1/transactions", undefined, { token: m.key, raw })
    expect(reply.status, `accepted with amount ${reply.body?.data?.amount}: ${reply.text.slice(0, 200)}`).toBe(400)
    expect(fields(reply.body)).toContain("amount")
    expect(await count("transactions")).toBe(before)
  })

  it("POST /public/v1/transactions metadata {a:1, a:2}: 400 naming metadata.a, not stored as {a:2}", async () => {
    const raw = `{"method":"pix","amount":1000,"customer":${customer},"metadata":{"a":1,"a":2}}`
    const reply = await api.request("POST", "/public/v1/transactions", undefined, { token: m.key, raw })
    expect(reply.status, reply.text.slice(0, 300)).toBe(400)
    expect(fields(reply.body)).toContain("metadata.a")
  })
})
