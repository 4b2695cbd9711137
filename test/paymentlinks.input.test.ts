import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { expectFieldErrors } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Payment-link input that used to get past the checks and fail later (docs/payment-links.md, fields of a
 * new link): a method word that is a property every object inherits (`constructor`, `toString`,
 * `__proto__`) reached the SQL as a function or an object (500), and an item `quantity` beyond a safe
 * integer was stored, then refused by the answer's own schema (500 on create, and on every later list of
 * the account's links). Each is now a 400 naming the field, on create and on PATCH, through /public/v1 and
 * the dashboard's routes alike, and the account's list still answers.
 */

let server: TestServer
let api: Client
let m: Awaited<ReturnType<typeof signup>>

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  m = await signup(api, "Loja das Entradas")
}, 60_000)
afterAll(async () => {
  await server?.close()
})

const V1 = "/public/v1/payment_links"
const DASH = "/api/dashboard/payment-links"
const routes = [
  {
    name: "/public/v1",
    create: (body: unknown) => api.post(V1, body, { token: m.key }),
    edit: (id: string, body: unknown) => api.patch(`${V1}/${id}`, body, { token: m.key }),
    list: () => api.get(V1, { token: m.key }),
    idOf: (body: any) => body.data.id as string
  },
  {
    name: "/api/dashboard",
    create: (body: unknown) => api.post(DASH, body, { token: m.token }),
    edit: (id: string, body: unknown) => api.patch(`${DASH}/${id}`, body, { token: m.token }),
    list: () => api.get(DASH, { token: m.token }),
    idOf: (body: any) => body.id as string
  }
]
const link = { name: "Camiseta", amount: 8_990, payment_methods: ["pix"] }
const INHERITED = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]

describe.each(routes)("payment-link input through $name", (route) => {
  it("a method word inherited by every object is a 400 naming payment_methods[i], on create and edit", async () => {
    for (const word of INHERITED) {
      expectFieldErrors(await route.create({ ...link, payment_methods: ["pix", word] }), ["payment_methods[1]"])
    }
    const made = await route.create(link)
    expect(made.status, made.text).toBe(201)
    const id = route.idOf(made.body)
    for (const word of INHERITED) {
      expectFieldErrors(await route.edit(id, { payment_methods: [word] }), ["payment_methods[0]"])
    }
    const still = await route.edit(id, { payment_methods: ["pix", "billet"] })
    expect(still.status, still.text).toBe(200)
  })

  it("an item quantity, or its line total, past what an amount can be is a 400 naming items[i].quantity", async () => {
    const item = { name: "Camiseta", unit_price: 8_990 }
    for (const quantity of [2 ** 53, 1e21, 1_000_001]) {
      expectFieldErrors(await route.create({ ...link, items: [{ ...item, quantity }] }), ["items[0].quantity"])
    }
    // Each below its bound, their product above the largest amount.
    expectFieldErrors(
      await route.create({
        ...link,
        items: [
          { ...item, quantity: 1 },
          { name: "Lote", quantity: 1_000_000, unit_price: 1_000_000 }
        ]
      }),
      ["items[1].quantity"]
    )
    const made = await route.create({
      ...link,
      items: [{ name: "Lote", quantity: 1_000_000, unit_price: 9_999 }]
    })
    expect(made.status, made.text).toBe(201)
    const id = route.idOf(made.body)
    expectFieldErrors(await route.edit(id, { items: [{ ...item, quantity: 2 ** 60 }] }), ["items[0].quantity"])
    const list = await route.list()
    expect(list.status, list.text).toBe(200)
    expect(list.body.data.length).toBeGreaterThan(0)
  })
})
