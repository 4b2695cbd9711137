import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
import { expectError, freshCpf } from "./support/payments.ts"
import { spawnRole, stopAll, type RoleProcess } from "./support/processes.ts"

/**
 * A payment link's visits per client address (docs/payment-links.md "Visits per minute", docs/configuration.md
 * "Client addresses") through real service processes: behind a trusted proxy (the test is the proxy, on
 * 127.0.0.1) each buyer's address, read from X-Forwarded-For, has its own window, a visit refused there takes
 * none of the link's, and the link's own limit still holds; with no proxy trusted, the header is ignored and
 * every visit is the socket's. With FORWARDED_HEADER=forwarded the proxy's RFC 7239 `Forwarded` is read instead,
 * and X-Forwarded-For, which that proxy would not manage, is not believed.
 */
const PER_ADDRESS = 3
const PER_LINK = 8
let proxied: RoleProcess
let direct: RoleProcess
let standard: RoleProcess

const start = async (env: Record<string, string>) =>
  spawnRole(
    "all",
    {
      DATABASE_URL: await createTestDatabase(),
      RATE_LIMIT_PER_MINUTE: "100000",
      PAYMENT_LINK_VISITS_PER_MINUTE: String(PER_LINK),
      PAYMENT_LINK_VISITS_PER_ADDRESS: String(PER_ADDRESS),
      ...env
    },
    { readyTimeoutMs: 90_000 }
  )

beforeAll(async () => {
  ;[proxied, direct, standard] = await Promise.all([
    start({ TRUSTED_PROXIES: "127.0.0.1, ::1" }),
    start({}),
    start({ TRUSTED_PROXIES: "127.0.0.1, ::1", FORWARDED_HEADER: "forwarded" })
  ])
}, 120_000)
afterAll(() => stopAll([proxied, direct, standard]))

const AMOUNT = 4_990
const buyer = () => ({ name: "Ana Souza", email: "ana@example.com", document: freshCpf() })

const linkOn = async (service: RoleProcess) => {
  const api = client(service.baseUrl)
  const { key } = await signup(api, "Loja das Visitas")
  const made = await api.post(
    "/public/v1/payment_links",
    { name: "Chapéu", amount: AMOUNT, payment_methods: ["pix"] },
    { token: key }
  )
  expect(made.status, made.text).toBe(201)
  const id = made.body.data.id as string
  const visitsWith = (n: number, headers: Record<string, string>) =>
    Promise.all(
      Array.from({ length: n }, () =>
        api.post(
          `/pay/${id}`,
          { method: "pix", customer: buyer() },
          { headers: { accept: "application/json", ...headers } }
        )
      )
    )
  const visits = (n: number, forwardedFor?: string) =>
    visitsWith(n, forwardedFor ? { "x-forwarded-for": forwardedFor } : {})
  const uses = async () => {
    const link = await api.get(`/public/v1/payment_links/${id}`, { token: key })
    const listed = await api.get(`/public/v1/payment_links/${id}/transactions?per_page=100`, { token: key })
    const amounts = (listed.body.data as Array<{ amount: number }>).map((t) => t.amount)
    return { uses: link.body.data.uses as number, sum: amounts.reduce((a, b) => a + b, 0), count: amounts.length }
  }
  return { visits, visitsWith, uses }
}

const statuses = (replies: ReadonlyArray<{ status: number }>) => replies.map((r) => r.status).sort()

describe("a payment link's visits per client address", { timeout: 60_000 }, () => {
  it("behind a trusted proxy, each buyer's address has its own window, whose refusals take no link slot", async () => {
    const link = await linkOn(proxied)
    const first = await link.visits(6, "198.51.100.7")
    expect(statuses(first)).toEqual([201, 201, 201, 429, 429, 429])
    for (const r of first.filter((r) => r.status === 429)) {
      expectError(r, 429, "payment_link_rate_limited")
      expect(r.body.message).toContain(`at most ${PER_ADDRESS} visits a minute from one address`)
      const retry = Number(r.headers.get("retry-after"))
      expect(retry >= 1 && retry <= 60, `retry-after ${retry}`).toBe(true)
    }
    // What a client wrote before the address our proxy appended is not believed: still 198.51.100.7.
    expect(statuses(await link.visits(1, "203.0.113.50, 198.51.100.7"))).toEqual([429])
    // Another buyer behind the same proxy is counted apart.
    expect(statuses(await link.visits(3, "198.51.100.8"))).toEqual([201, 201, 201])
    // The link's own minute saw 6 visits, not 10: one more buyer gets the 2 left of its 8.
    const third = await link.visits(3, "198.51.100.9")
    expect(statuses(third)).toEqual([201, 201, 429])
    expect(third.find((r) => r.status === 429)!.body.message).toContain(`at most ${PER_LINK} visits a minute;`)
    // Exactly the admitted visits made transactions and took uses, to the centavo.
    expect(await link.uses()).toEqual({ uses: PER_LINK, count: PER_LINK, sum: PER_LINK * AMOUNT })
  })

  it("behind a proxy writing RFC 7239 Forwarded, its `for` is the buyer; X-Forwarded-For is not believed", async () => {
    const link = await linkOn(standard)
    // One buyer, whatever X-Forwarded-For a client adds: the window of 198.51.100.7 alone.
    const first = [
      ...(await link.visitsWith(2, { forwarded: "for=198.51.100.7;proto=https", "x-forwarded-for": "203.0.113.1" })),
      ...(await link.visitsWith(2, { forwarded: 'For="198.51.100.7:4711"', "x-forwarded-for": "203.0.113.2" }))
    ]
    expect(statuses(first)).toEqual([201, 201, 201, 429])
    // What a client wrote before the element our proxy appended is not believed.
    expect(statuses(await link.visitsWith(1, { forwarded: "for=203.0.113.50, for=198.51.100.7" }))).toEqual([429])
    // Another buyer, over IPv6 with its port, is counted apart; X-Forwarded-For alone names nobody here.
    expect(statuses(await link.visitsWith(2, { forwarded: 'for="[2001:db8:cafe::17]:4711"' }))).toEqual([201, 201])
    expect(statuses(await link.visitsWith(1, { "x-forwarded-for": "198.51.100.9" }))).toEqual([201])
    expect(await link.uses()).toEqual({ uses: 6, count: 6, sum: 6 * AMOUNT })
  })

  it("with no proxy trusted, X-Forwarded-For is ignored: every visit is the socket's address", async () => {
    const link = await linkOn(direct)
    const replies = [
      ...(await link.visits(2, "198.51.100.7")),
      ...(await link.visits(2, "198.51.100.8")),
      ...(await link.visits(2))
    ]
    expect(statuses(replies)).toEqual([201, 201, 201, 429, 429, 429])
    expect(await link.uses()).toEqual({ uses: PER_ADDRESS, count: PER_ADDRESS, sum: PER_ADDRESS * AMOUNT })
  })
})
