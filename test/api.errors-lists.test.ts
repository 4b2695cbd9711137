import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseFee } from "../src/domain/ledger.ts"
import { customerBody } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { eventually, freshCpf, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { jsonBody, type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 23.4 (docs/api.md "Errors", "Lists", "Customers", "Withdrawals"): every error has a `code`,
 * every 401 a challenge; /api lists keep answering everything without parameters, take the filters a
 * merchant needs and name any unknown or malformed parameter (both interfaces); every list is newest
 * first; a failed withdrawal says why; a customer creation that hits an existing CPF says which sent
 * fields the existing record did not take.
 */

let server: TestServer
let api: Client
let receiver: Receiver
const V1 = "/public/v1"

beforeAll(async () => {
  server = await startTestServer({
    rateLimitPerMinute: 100_000,
    money: {
      fees: { CARD: parseFee("3.99%")!, PIX: parseFee("0.99%")!, BOLETO: parseFee("349")! },
      schedule: { pixDays: 0, billetDays: 1, cardDays: 30, reserveDays: 30, reserve: { a: 0n, b: 100n } },
      withdrawalDelaySeconds: 0,
      disputeDelaySeconds: 10
    }
  })
  api = client(server.baseUrl)
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver?.close()
  await server?.close()
})

describe("errors (issue 23.4)", () => {
  it("406 and 415 carry a code like every other error", async () => {
    const { key } = await signup(api)
    const notAcceptable = await api.get(`${V1}/balance`, { token: key, headers: { accept: "text/html" } })
    expect(notAcceptable.status).toBe(406)
    expect(notAcceptable.body).toMatchObject({ success: false, statusCode: 406, code: "not_acceptable" })
    const unsupported = await api.post(`${V1}/transactions`, undefined, {
      token: key,
      raw: "method=pix",
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expect(unsupported.status).toBe(415)
    expect(unsupported.body.code).toBe("unsupported_media_type")
  })

  it("every 401 says how to authenticate (WWW-Authenticate) for its interface", async () => {
    const cases: Array<[string, string]> = [
      ["/api/customers", 'ApiKey realm="api", header="X-Api-Key"'],
      ["/api/api-keys/me", 'Bearer realm="api"'],
      [`${V1}/balance`, 'Bearer realm="public/v1"'],
      [`${V1}/transactions?api_token=sk_live_nope`, 'Bearer realm="public/v1"']
    ]
    for (const [path, challenge] of cases) {
      const reply = await api.get(path)
      expect(reply.status, path).toBe(401)
      expect(reply.headers.get("www-authenticate"), path).toBe(challenge)
      expect(reply.body.code, path).toMatch(/^invalid_(api_key|token)$/)
    }
    const login = await api.post("/api/auth/login", { email: "nobody@example.com", password: "wrong password" })
    expect(login.status).toBe(401)
    expect(login.headers.get("www-authenticate")).toBe('Bearer realm="api"')
  })
})

describe("/api lists (issue 23.4)", () => {
  it("without parameters every record, newest first; filters by status, method and creation time", async () => {
    const { key } = await signup(api)
    const pixOrder = await newOrder(api, key, 1_000)
    const pix = await api.post(PROCESS, pixBody(pixOrder.orderId, 1_000), { key })
    expect(pix.status, pix.text).toBe(201)
    const middle = new Date()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const paidOrder = await newOrder(api, key, 2_000)
    const paid = await api.post(PROCESS, pixBody(paidOrder.orderId, 2_000), { key })
    expect(
      (await api.post(`/api/sandbox/transactions/${paid.body.transactionId}/pay`, undefined, { key })).status
    ).toBe(200)
    const ids = async (path: string) => {
      const reply = await api.get(path, { key })
      expect(reply.status, `${path} ${reply.text}`).toBe(200)
      return reply.body.map((r: { id: string }) => r.id)
    }
    // Newest first, everything without parameters (the spec's list).
    expect(await ids("/api/transactions")).toEqual([paid.body.transactionId, pix.body.transactionId])
    expect(await ids("/api/orders")).toEqual([paidOrder.orderId, pixOrder.orderId])
    expect(await ids("/api/customers")).toEqual([paidOrder.customerId, pixOrder.customerId])
    // Filters.
    expect(await ids("/api/transactions?status=PAID")).toEqual([paid.body.transactionId])
    expect(await ids("/api/transactions?status=PENDING&method=PIX")).toEqual([pix.body.transactionId])
    expect(await ids("/api/transactions?method=CARD")).toEqual([])
    expect(await ids("/api/orders?status=PENDING")).toEqual([pixOrder.orderId])
    const at = encodeURIComponent(middle.toISOString())
    expect(await ids(`/api/transactions?createdFrom=${at}`)).toEqual([paid.body.transactionId])
    expect(await ids(`/api/transactions?createdTo=${at}`)).toEqual([pix.body.transactionId])
    expect(await ids(`/api/customers?createdTo=${at}`)).toEqual([pixOrder.customerId])
    const today = new Date().toISOString().slice(0, 10)
    expect(await ids(`/api/orders?createdFrom=${today}&createdTo=${today}`)).toHaveLength(2)
    expect(await ids("/api/orders?createdTo=2000-01-01")).toEqual([])
  })

  it("an unknown or malformed query parameter is a 400 naming it, on both interfaces", async () => {
    const { key } = await signup(api)
    const cases: Array<[string, string]> = [
      ["/api/transactions?status=NOPE", "status"],
      ["/api/transactions?method=pix", "method"],
      ["/api/transactions?createdFrom=yesterday", "createdFrom"],
      ["/api/orders?createdTo=2026-02-30", "createdTo"],
      // A day that does not exist, in an instant too: refused, not read as 2 March (instant.ts).
      ["/api/transactions?createdFrom=2026-02-30T10:00:00Z", "createdFrom"],
      ["/api/orders?createdTo=2026-11-31T23:59:59-03:00", "createdTo"],
      ["/api/orders?stauts=PAID", "stauts"],
      ["/api/customers?page=2", "page"],
      ["/api/customers/00000000-0000-4000-8000-000000000000?expand=orders", "expand"],
      ["/api/webhooks/deliveries?event=transaction.paid&limit=5", "limit"],
      [`${V1}/transactions?stauts=paid`, "stauts"],
      [`${V1}/subaccounts?foo=1`, "foo"],
      [`${V1}/withdrawals?per_page=10&sort=asc`, "sort"],
      [`${V1}/balance?currency=BRL`, "currency"]
    ]
    for (const [path, field] of cases) {
      const reply = await api.get(path, path.startsWith(V1) ? { token: key } : { key })
      expect(reply.status, `${path}: ${reply.text}`).toBe(400)
      expect(reply.body.code, path).toBe("validation_failed")
      expect(
        reply.body.errors.map((e: { field: string }) => e.field),
        path
      ).toContain(field)
      expect(reply.body.message, path).toMatch(new RegExp(`^${field}\\b`))
    }
    // The documented parameters keep working, `api_token` on every v1 route included.
    for (const path of [
      `${V1}/transactions?page=1&per_page=5&status=paid&method=pix&created_from=2026-01-01&created_to=2026-12-31`,
      `${V1}/subaccounts?status=active&per_page=5`,
      `${V1}/withdrawals?page=1&per_page=5`,
      `${V1}/financials?start_at=2026-01-01&end_at=2026-01-31&type=sale`,
      `${V1}/installments?amount=10000`
    ]) {
      const reply = await api.get(path, { token: key })
      expect(reply.status, `${path}: ${reply.text}`).toBe(200)
    }
    const byQuery = await api.get(`${V1}/balance?api_token=${key}`)
    expect(byQuery.status, byQuery.text).toBe(200)
    // Pages outside the API keep tracking parameters a shared link collects.
    expect((await api.get("/health?utm_source=x")).status).toBe(200)
  })
})

describe("customers and withdrawals (issue 23.4)", () => {
  it("a known CPF with another name or email: 200 with the old record; the header names what was ignored", async () => {
    const { key } = await signup(api)
    const body = customerBody()
    expect((await api.post("/api/customers", body, { key })).status).toBe(201)
    const same = await api.post("/api/customers", body, { key })
    expect(same.status).toBe(200)
    expect(same.headers.get("x-customer-fields-ignored")).toBeNull()
    const other = await api.post(
      "/api/customers",
      { ...body, name: "Maria Souza", email: "outra@example.com" },
      { key }
    )
    expect(other.status).toBe(200)
    expect(other.body).toMatchObject({ name: body.name, email: body.email, document: body.document })
    expect(other.headers.get("x-customer-fields-ignored")).toBe("name,email")
  })

  it("a failed withdrawal carries its failure_reason in the read, the list and the event; newest first", async () => {
    const { key } = await signup(api)
    expect((await api.post("/api/webhooks/upsert", { url: receiver.url }, { key })).status).toBeLessThan(300)
    const sale = await api.post(
      `${V1}/transactions`,
      { method: "pix", amount: 10_000, customer: { name: "Maria", email: "m@example.com", document: freshCpf() } },
      { token: key }
    )
    expect((await api.post(`/api/sandbox/transactions/${sale.body.data.hash}/pay`, undefined, { key })).status).toBe(
      200
    )
    const bank = { bank_code: "341", agency: "0001", account: "0123456", account_digit: "1", type: "checking" }
    const good = await api.post(`${V1}/withdrawals`, { amount: 1_000, bank_account: bank }, { token: key })
    expect(good.status, good.text).toBe(201)
    expect(good.body.data.failure_reason).toBeNull()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const bad = await api.post(
      `${V1}/withdrawals`,
      { amount: 2_000, bank_account: { ...bank, account: "0000000" } },
      { token: key }
    )
    expect(bad.status, bad.text).toBe(201)
    const id = bad.body.data.id
    // A TED waits for a business day (docs/calendar.md): the sandbox lets it come now, whatever the day of
    // the run. 202 while pending; 200 if the bank job (no delay here) has refused it already.
    const sent = await api.post(`/api/sandbox/withdrawals/${id}/send`, undefined, { key })
    expect([200, 202], sent.text).toContain(sent.status)
    const failed = await eventually(async () => {
      const w = await api.get(`${V1}/withdrawals/${id}`, { token: key })
      return w.body.data.status === "failed" ? w.body.data : undefined
    })
    expect(failed.failure_reason).toEqual(expect.any(String))
    expect(failed.failure_reason.length).toBeGreaterThan(0)
    const list = await api.get(`${V1}/withdrawals`, { token: key })
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([id, good.body.data.id])
    expect(list.body.data[0].failure_reason).toBe(failed.failure_reason)
    const event = await eventually(async () =>
      receiver.requests.map(jsonBody).find((b: any) => b.event === "withdraw.failed" && b.data.id === id)
    )
    expect(event.data.failure_reason).toBe(failed.failure_reason)
  })
})
