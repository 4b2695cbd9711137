import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * /public/v1 answers against the binding contract: the customer's phone came back stripped of +55 and
 * punctuation.
 * /work/shared/CONTRACT-v1.md:41 (§2, the v1 transaction):
 *   "| customer | as sent (§3) except `document`, stored without punctuation; plus `document_type`; ..."
 * Only `document` may come back rewritten; every other customer field is echoed as sent.
 */

let server: TestServer
let api: Client
let key: string
const V1 = "/public/v1"

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

describe("CONTRACT-v1 §2: customer is returned as sent, except document", () => {
  it("echoes customer.phone as sent on create and GET (CONTRACT-v1.md:41)", async () => {
    const sent = {
      name: "Maria Silva",
      email: "maria@example.com",
      document: freshCpf(),
      phone: "+55 (11) 91234-5678"
    }
    const created = await api.post(
      `${V1}/transactions`,
      { method: "pix", amount: 1_000, customer: sent },
      { token: key }
    )
    expect(created.status).toBe(201)
    expect(created.body.data.customer.phone).toBe(sent.phone)
    const read = await api.get(`${V1}/transactions/${created.body.data.hash}`, { token: key })
    expect(read.body.data.customer.phone).toBe(sent.phone)
  })
})
