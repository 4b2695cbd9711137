import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf, newOrder, PROCESS, tokenCardBody, TOKENIZE, tokenizeBody } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A card charge the antifraud holds for a manual decision keeps its card in the vault (PAN encrypted, no CVV,
 * under no customer: src/ports/CardVault.ts StoredCard.customerId, docs/antifraud.md "Manual review") only
 * while that decision waits. Once it is made — rejected, or approved and sent to the acquirer — nothing reads
 * the PAN again, and PCI DSS 3.1 keeps cardholder data only as long as it is needed: the card leaves the vault
 * (`CardVault.discard`) and its charge no longer names it. A customer's saved card charged that way is the
 * customer's, and stays.
 */

const V1 = "/public/v1"
/** The sandbox's card the antifraud always holds (docs/antifraud.md `sandbox_review_card`). */
const HELD_CARD = "4000000000000101"

let server: TestServer
let api: Client
let merchant: Awaited<ReturnType<typeof signup>>

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  merchant = await signup(api)
})
afterAll(async () => {
  await server?.close()
})

const cardToken = async (hash: string) =>
  (await server.db.query("select card_token from transactions where id = $1", [hash])).rows[0].card_token as
    string | null

/** A v1 charge held by the antifraud (`antifraud`), its card in the vault under no customer. */
const heldCharge = async (
  options: { number?: string; customer?: Record<string, unknown> } = {}
): Promise<{ hash: string; held: string }> => {
  const reply = await api.post(
    `${V1}/transactions`,
    {
      method: "credit_card",
      amount: 10_000,
      customer: options.customer ?? {
        name: "Maria Silva",
        email: "maria@example.com",
        document: freshCpf(),
        ip: "8.8.8.8"
      },
      card: {
        number: options.number ?? HELD_CARD,
        holder_name: "MARIA SILVA",
        exp_month: "12",
        exp_year: String(new Date().getUTCFullYear() + 3),
        cvv: "123"
      }
    },
    { token: merchant.key }
  )
  expect(reply.status, reply.text).toBe(201)
  expect(reply.body.data.status).toBe("antifraud")
  const hash = reply.body.data.hash as string
  const held = await cardToken(hash)
  expect(held).toBeTruthy()
  // While the decision waits, the card is in the vault (PAN encrypted, no customer).
  const vaulted = await server.db.query("select customer_id from cards where token = $1", [held])
  expect(vaulted.rows).toHaveLength(1)
  expect(vaulted.rows[0].customer_id).toBeNull()
  return { hash, held: held! }
}

const decide = (id: string, decision: string) =>
  api.post(`/api/sandbox/transactions/${id}/antifraud`, { decision }, { key: merchant.key })

const vaulted = async (token: string) =>
  (await server.db.query("select count(*)::int as n from cards where token = $1", [token])).rows[0].n as number

describe("a card held by the antifraud leaves the vault once its charge is decided", () => {
  it("rejected: the charge is refused, its held PAN is no longer in the vault nor named by it", async () => {
    const { hash, held } = await heldCharge()
    const rejected = await decide(hash, "reject")
    expect(rejected.status, rejected.text).toBe(200)
    expect(rejected.body.status).toBe("DECLINED")
    expect(await vaulted(held)).toBe(0)
    expect(await cardToken(hash)).toBeNull()
  })

  it("approved and captured: the held PAN is no longer in the vault; the charge reads as it did", async () => {
    const { hash, held } = await heldCharge()
    const approved = await decide(hash, "approve")
    expect(approved.status, approved.text).toBe(200)
    expect(approved.body.status).toBe("CAPTURED")
    expect(await vaulted(held)).toBe(0)
    expect(await cardToken(hash)).toBeNull()
    // The card shown on the charge is its own copy (brand, last four, holder), not the vault's.
    const read = await api.get(`${V1}/transactions/${hash}`, { token: merchant.key })
    expect(read.status, read.text).toBe(200)
    expect(read.body.data).toMatchObject({ status: "paid", card: { brand: "Visa", last4: HELD_CARD.slice(-4) } })
  })

  it("approved and declined by the acquirer: the held PAN is no longer in the vault", async () => {
    // The acquirer's declined card, held by two signals together (a disposable e-mail, a private IP).
    const { hash, held } = await heldCharge({
      number: CARDS.declined,
      customer: { name: "Carlos Pereira", email: "x@yopmail.com", document: freshCpf(), ip: "10.1.2.3" }
    })
    const approved = await decide(hash, "approve")
    expect(approved.status, approved.text).toBe(200)
    expect(approved.body.status).toBe("DECLINED")
    expect(await vaulted(held)).toBe(0)
    expect(await cardToken(hash)).toBeNull()
  })

  it("a customer's saved card charged by token and held is kept, whatever the decision", async () => {
    for (const decision of ["approve", "reject"]) {
      const order = await newOrder(api, merchant.key)
      const tokenized = await api.post(TOKENIZE, tokenizeBody(order.customerId, HELD_CARD), { key: merchant.key })
      expect(tokenized.status, tokenized.text).toBe(201)
      const token = tokenized.body.cardToken as string
      const charged = await api.post(PROCESS, tokenCardBody(order.orderId, order.amount, token), {
        key: merchant.key
      })
      expect(charged.status, charged.text).toBe(201)
      expect(charged.body.status).toBe("ANTIFRAUD")
      const id = charged.body.transactionId as string
      expect(await cardToken(id)).toBe(token)
      const decided = await decide(id, decision)
      expect(decided.status, decided.text).toBe(200)
      expect(decided.body.status).toBe(decision === "approve" ? "CAPTURED" : "DECLINED")
      expect(await vaulted(token)).toBe(1)
      expect(await cardToken(id)).toBe(token)
    }
  })
})
