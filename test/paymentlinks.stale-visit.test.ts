import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { blockedBy } from "./support/locks.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A visit racing an edit of its link charges the link as it is when the visit takes its use
 * (docs/payment-links.md "Editing a link": "the visit charges what the link says when it is submitted").
 * The visit reads the link first (to refuse a bad body before it takes a slot of the link's minute), then
 * takes that slot, then its use under the row lock; the method, amount, installments, items and metadata
 * charged are decided again on the locked row (PaymentLinks.visit). Here an edit commits between the read
 * and the use: the interleaving is forced by holding the link's visit-slot advisory lock (rate_limit_take)
 * from a connection of the test, which the visit takes after reading the link and before taking its use.
 * A method taken away is a 400 naming `method` with the use given back; installments lowered are the
 * charge's plan; new items and metadata are the transaction's. Each fails when the charge is built from
 * the first read (found in review: a credit-card charge after cards were removed, 12x paid after the
 * merchant lowered the link to à vista).
 */

let server: TestServer
let api: Client
let m: Awaited<ReturnType<typeof signup>>

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, paymentLinkVisitsPerMinute: 1_000 })
  api = client(server.baseUrl)
  m = await signup(api, "Loja Revisada")
})
afterAll(async () => {
  await server?.close()
})

const LINKS = "/public/v1/payment_links"
const buyer = () => ({ name: "Ana Souza", email: "ana@example.com", document: freshCpf() })
const visit = (id: string, body: unknown) => api.post(`/pay/${id}`, body, { headers: { accept: "application/json" } })
const create = async (body: Record<string, unknown>) => {
  const made = await api.post(LINKS, body, { token: m.key })
  expect(made.status, made.text).toBe(201)
  return made.body.data
}
const linkTransactions = async (id: string) =>
  (await api.get(`${LINKS}/${id}/transactions`, { token: m.key })).body.data ?? []

/** Runs `visiting` while the link's visit slot is held, commits `edit` meanwhile, then lets the visit go. */
const visitAcrossEdit = async (linkId: string, body: unknown, edit: unknown) => {
  const holder = await server.db.connect()
  try {
    await holder.query("begin")
    await holder.query("select pg_advisory_xact_lock(hashtextextended('rate_limit:' || $1::uuid::text, 0))", [linkId])
    const visiting = visit(linkId, body)
    // The visit has read the link and waits for its visit slot (a 400 would not wait: shown if so).
    await blockedBy(server.db, holder).catch(async (e) => {
      const v = await visiting
      throw new Error(`${e}: ${v.status} ${v.text}`)
    })
    const edited = await api.patch(`${LINKS}/${linkId}`, edit, { token: m.key })
    expect(edited.status, edited.text).toBe(200)
    await holder.query("commit")
    return { visited: await visiting, edited: edited.body.data }
  } finally {
    await holder.query("rollback").catch(() => undefined)
    holder.release()
  }
}

describe("a visit racing an edit of its link", () => {
  it("credit_card taken off the link: the card visit is a 400 naming method, nothing made, no use", async () => {
    const link = await create({
      name: "Curso",
      amount: 100_000,
      payment_methods: ["pix", "credit_card"],
      max_installments: 12,
      items: [{ name: "Curso antigo", quantity: 1, unit_price: 100_000 }],
      metadata: { campaign: "old" }
    })
    const { visited, edited } = await visitAcrossEdit(
      link.id,
      { method: "credit_card", customer: buyer() },
      {
        payment_methods: ["pix"],
        items: [{ name: "Curso novo", quantity: 1, unit_price: 100_000 }],
        metadata: { campaign: "new" }
      }
    )
    expect(edited).toMatchObject({ payment_methods: ["pix"], max_installments: 1 })
    // The 400 the up-to-date link gives any visit naming a method it does not take.
    expect(visited.status, visited.text).toBe(400)
    expect(visited.body.errors).toEqual([{ field: "method", message: "method must be one of this link's: pix" }])
    expect(await linkTransactions(link.id)).toEqual([])
    // The use taken under the lock went back with the refused charge.
    expect((await api.get(`${LINKS}/${link.id}`, { token: m.key })).body.data.uses).toBe(0)
    const { rows } = await server.db.query("select 1 from payment_link_transactions where payment_link_id = $1", [
      link.id
    ])
    expect(rows).toEqual([])
  })

  it("max_installments lowered to 1: the visit's charge is à vista only, and 12x is refused on the form", async () => {
    const link = await create({
      name: "Curso 2",
      amount: 100_000,
      payment_methods: ["credit_card"],
      max_installments: 12
    })
    const { visited, edited } = await visitAcrossEdit(
      link.id,
      { method: "credit_card", customer: buyer() },
      { max_installments: 1 }
    )
    expect(edited).toMatchObject({ max_installments: 1 })
    expect(visited.status, visited.text).toBe(201)
    const path = new URL(visited.body.checkout_url).pathname
    const paid = await api.post(`${path}/card`, {
      holder_name: "ANA SOUZA",
      number: CARDS.visa,
      exp_month: "12",
      exp_year: String(new Date().getUTCFullYear() + 2),
      cvv: "123",
      installments: 12
    })
    const [t] = await linkTransactions(link.id)
    // 12x refused (400 `installments`), the charge pending at R$ 1.000,00 on a plan of at most 1.
    expect(paid.status, paid.text).toBe(400)
    expect(paid.body.errors?.map((e: { field: string }) => e.field)).toContain("installments")
    expect({ installments: t.installments, total: t.amount_total, max: t.max_installments }).toEqual({
      installments: 1,
      total: 100_000,
      max: 1
    })
    // The visit's record and its transaction say the same plan.
    const { rows } = await server.db.query(
      "select max_installments from payment_link_transactions where payment_link_id = $1",
      [link.id]
    )
    expect(rows).toEqual([{ max_installments: 1 }])
  })

  it("items and metadata edited: the visit's transaction carries the new ones", async () => {
    const link = await create({
      name: "Curso 3",
      amount: 100_000,
      payment_methods: ["pix"],
      items: [{ name: "Curso antigo", quantity: 1, unit_price: 100_000 }],
      metadata: { campaign: "old" }
    })
    const { visited } = await visitAcrossEdit(
      link.id,
      { method: "pix", customer: buyer() },
      { items: [{ name: "Curso novo", quantity: 2, unit_price: 50_000, sku: "CN-2" }], metadata: { campaign: "new" } }
    )
    expect(visited.status, visited.text).toBe(201)
    const [t] = await linkTransactions(link.id)
    expect(t).toMatchObject({
      method: "pix",
      amount: 100_000,
      products: [{ name: "Curso novo", quantity: 2, unit_price: 50_000, sku: "CN-2" }],
      metadata: { campaign: "new", payment_link_id: link.id }
    })
  })
})
