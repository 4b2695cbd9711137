import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { blockedBy } from "./support/locks.ts"
import { freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A link's expiry was checked by takeUse with `expires_at > now()`. PostgreSQL's now() is the start of
 * the visit's transaction, not the moment the row lock is granted: a visit that waited for the link's row
 * lock (held by another visit's charge, or an edit) past the deadline still took a use and was charged
 * after the link expired; now `clock_timestamp()` (docs/payment-links.md "Concurrency": "Expiry is the database
 * clock's, in the same statement").
 */

let server: TestServer
let api: Client
let m: Awaited<ReturnType<typeof signup>>

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, paymentLinkVisitsPerMinute: 1_000 })
  api = client(server.baseUrl)
  m = await signup(api, "Loja do Prazo")
}, 120_000)
afterAll(async () => {
  await server?.close()
})

const LINKS = "/public/v1/payment_links"
const buyer = () => ({ name: "Ana Souza", email: "ana@example.com", document: freshCpf() })
const visit = (id: string, body: unknown) => api.post(`/pay/${id}`, body, { headers: { accept: "application/json" } })

describe("expiry of a link whose row lock a visit waits for", () => {
  it("a visit granted the row after expires_at is refused 409 payment_link_expired, nothing taken", async () => {
    const deadline = new Date(Date.now() + 2_500)
    const made = await api.post(
      LINKS,
      { name: "Oferta relâmpago", amount: 5_000, payment_methods: ["pix"], expires_at: deadline.toISOString() },
      { token: m.key }
    )
    expect(made.status, made.text).toBe(201)
    const id = made.body.data.id as string

    // Another session holds the link's row, changed (as a visit charging at the PSP, having taken its use, or
    // an edit does): the waiting visit's statement then checks the row again once it is granted.
    const holder = await server.db.connect()
    try {
      await holder.query("begin")
      await holder.query("update payment_links set updated_at = now() where id = $1", [id])
      const visiting = visit(id, { method: "pix", customer: buyer() })
      await blockedBy(server.db, holder)
      // The link expires while the visit waits for the row.
      const wait = deadline.getTime() + 700 - Date.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      await holder.query("commit")
      const visited = await visiting
      expect(Date.now()).toBeGreaterThan(deadline.getTime())
      expect(visited.status, visited.text).toBe(409)
      expect(visited.body.code ?? visited.text).toContain("payment_link_expired")
    } finally {
      await holder.query("rollback").catch(() => undefined)
      holder.release()
    }
    const link = await api.get(`${LINKS}/${id}`, { token: m.key })
    expect(link.body.data).toMatchObject({ status: "expired", uses: 0 })
    const txs = await api.get(`${LINKS}/${id}/transactions`, { token: m.key })
    expect(txs.body.data).toEqual([])
  }, 60_000)
})
