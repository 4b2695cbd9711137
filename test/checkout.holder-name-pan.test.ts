import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The hosted card form: docs/checkout.md promises that the card number is in no
 * "merchant-visible record" and the merchant's server never sees the card (SAQ-A). The form's holder name
 * is buyer-typed text that the gateway keeps (`details.card.holderName`) and returns to the merchant
 * (v1 `card.holder_name`, the dashboard). A buyer who types (or whose browser autofills) the card number
 * into "Nome impresso no cartão" had it stored in clear in the transactions table and shown to the merchant;
 * now the name is refused (400 naming holder_name, the value not repeated: src/domain/payment.ts).
 */
let server: TestServer
const api = () => client(server.baseUrl)
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
})
afterAll(async () => {
  await server?.close()
})

const PAN = "4111111111111111"
/** The number however the buyer spaced it. */
const WRITTEN = /4111[\s.-]?1111[\s.-]?1111[\s.-]?1111/

describe("hosted card form: a card number in the holder name", () => {
  it("never reaches the transaction record, the v1 read or the dashboard", async () => {
    const m = await signup(api(), "Loja Holder")
    const charge = await api().post(
      "/public/v1/transactions",
      {
        method: "credit_card",
        amount: 30_000,
        customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf() }
      },
      { token: m.key }
    )
    expect(charge.status, charge.text).toBe(201)
    const path = new URL(charge.body.data.checkout_url).pathname
    const paid = await api().post(
      `${path}/card`,
      { holder_name: "4111 1111 1111 1111", number: PAN, exp_month: "12", exp_year: "2030", cvv: "987" },
      { headers: { accept: "application/json" } }
    )
    expect(paid.status, paid.text).toBe(400)
    expect(paid.text).toContain("holder_name")
    expect(paid.text).not.toMatch(WRITTEN)
    const hash = charge.body.data.hash as string
    const v1 = await api().get(`/public/v1/transactions/${hash}`, { token: m.key })
    expect(v1.body.data.card?.holder_name ?? "").not.toMatch(WRITTEN)
    expect(v1.text).not.toMatch(WRITTEN)
    const dashboard = await api().get(`/api/dashboard/transactions/${hash}`, { token: m.token })
    expect(dashboard.text).not.toMatch(WRITTEN)
    const row = await server.db.query("select details::text as details from transactions where id = $1", [hash])
    expect(String(row.rows[0].details)).not.toMatch(WRITTEN)
  })
})
