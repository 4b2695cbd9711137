import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

// docs/antifraud.md, holder_name_mismatch: "after removing accents, case, punctuation and particles (da, de,
// do, dos, das, e…) and folding compatibility forms (full-width letters), in any script, fewer than half of the
// shorter name's words appear in the other": a holder written in Cyrillic, full-width Latin or letters that do
// not decompose (Ł Ø) is words too, and differs from the buyer's.

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

const chargeWithHolder = async (holder: string) => {
  const reply = await api.post(
    "/public/v1/transactions",
    {
      method: "credit_card",
      amount: 10_000,
      customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "8.8.8.8" },
      card: {
        number: "4111111111111111",
        holder_name: holder,
        exp_month: "12",
        exp_year: String(new Date().getUTCFullYear() + 3),
        cvv: "123"
      }
    },
    { token: key }
  )
  expect(reply.status, reply.text).toBe(201)
  const read = await api.get(`/public/v1/antifraud/${reply.body.data.hash}`, { token: key })
  expect(read.status, read.text).toBe(200)
  return read.body.data
}

describe("holder_name_mismatch", () => {
  it("control: JOAO PEREIRA against Maria Silva fires", async () => {
    expect((await chargeWithHolder("JOAO PEREIRA")).reason).toBe("holder_name_mismatch")
  })
  it.each([
    ["Cyrillic", "ИВАН ПЕТРОВ"],
    ["full-width Latin", "ＪＯＡＯ ＰＥＲＥＩＲＡ"],
    ["Latin letters NFD does not decompose", "ŁØĐ ÆÞ"]
  ])("a holder name in %s, no word in common with Maria Silva, fires too", async (_, holder) => {
    expect((await chargeWithHolder(holder)).reason).toBe("holder_name_mismatch")
  })
})
