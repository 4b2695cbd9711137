import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customerBody, expectError, expectFieldErrors, freshCpf, ISO_UTC, UUID } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * /api/customers (interface-v2 "Customers"): CPF de-duplication (rule 1), validation, PATCH,
 * irreversible soft delete (rule 2) and tenant isolation.
 */

type Account = Awaited<ReturnType<typeof signup>>

let server: TestServer
let api: Client
let a: Account
let b: Account
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  ;[a, b] = await Promise.all([signup(api, "Loja A"), signup(api, "Loja B")])
})
afterAll(async () => {
  await server?.close()
})

const create = (account: Account, body: unknown) => api.post("/api/customers", body, { key: account.key })
const list = async (account: Account) => {
  const reply = await api.get("/api/customers", { key: account.key })
  expect(reply.status).toBe(200)
  return reply.body as Array<{ id: string; document: string }>
}

describe("POST /api/customers", () => {
  it("201 with the Customer", async () => {
    const body = customerBody({ name: "João Pereira", email: "joao@example.com", phone: "(21) 98765-4321" })
    const reply = await create(a, body)
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body).toEqual({ id: expect.stringMatching(UUID), ...body, createdAt: expect.stringMatching(ISO_UTC) })
    expect(Math.abs(Date.parse(reply.body.createdAt) - Date.now())).toBeLessThan(60_000)
  })

  it(
    "same CPF again (even with another name and email) → 200 with the " + "original record; still one customer",
    async () => {
      const document = freshCpf()
      const first = await create(a, customerBody({ document, name: "Primeira", email: "primeira@example.com" }))
      expect(first.status).toBe(201)
      const again = await create(
        a,
        customerBody({ document, name: "Segunda", email: "segunda@example.com", phone: "(11) 3333-4444" })
      )
      expect(again.status, again.text).toBe(200)
      expect(again.body).toEqual(first.body)
      expect((await list(a)).filter((c) => c.document === document)).toHaveLength(1)
    }
  )

  it("10 concurrent creations of one new CPF → one id, exactly one 201 and nine 200", async () => {
    const document = freshCpf()
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(a, customerBody({ document, name: `Concorrente ${i}` })))
    )
    const statuses = replies.map((r) => r.status).sort((x, y) => x - y)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1)
    const winner = replies.find((r) => r.status === 201)!
    for (const reply of replies) expect(reply.body).toEqual(winner.body)
    expect((await list(a)).filter((c) => c.document === document)).toHaveLength(1)
  })

  describe("400 naming each bad field", () => {
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ["empty name", { name: "" }, ["name"]],
      ["blank name", { name: "   " }, ["name"]],
      ["bad email", { email: "maria.example.com" }, ["email"]],
      ["email with a space", { email: "maria @example.com" }, ["email"]],
      ["CPF of 10 digits", { document: "5299822472" }, ["document"]],
      ["CPF of 12 digits", { document: "529982247250" }, ["document"]],
      ["CPF with punctuation", { document: "529.982.247-25" }, ["document"]],
      ["CPF with bad check digits", { document: "52998224726" }, ["document"]],
      ["CPF of repeated digits", { document: "11111111111" }, ["document"]],
      ["bad phone", { phone: "12345" }, ["phone"]],
      ["phone with an unknown area code", { phone: "(00) 91234-5678" }, ["phone"]],
      ["number for name", { name: 42 }, ["name"]],
      ["number for CPF", { document: 52998224725 }, ["document"]],
      ["null email", { email: null }, ["email"]],
      ["several at once", { name: "", email: "x", document: "123", phone: "1" }, ["name", "email", "document", "phone"]]
    ]
    it.each(cases)("%s", async (_name, overrides, fields) => {
      const before = (await list(a)).length
      const body = expectFieldErrors(await create(a, customerBody(overrides)), fields)
      expect(body.code).toBe("validation_failed")
      expect((await list(a)).length).toBe(before)
    })

    it("missing fields", async () => {
      expectFieldErrors(await create(a, {}), ["name", "email", "document", "phone"])
      const { phone: _phone, email: _email, ...partial } = customerBody()
      expectFieldErrors(await create(a, partial), ["email", "phone"])
    })

    it("a body that is not an object", async () => {
      for (const body of [[customerBody()], "text", 42, null]) {
        const reply = await create(a, body)
        expectFieldErrors(reply, ["body"])
      }
    })
  })
})

describe("GET /api/customers and /api/customers/{id}", () => {
  it("list is exactly the account's live customers, newest first; get returns one", async () => {
    const fresh = await signup(api)
    expect(await list(fresh)).toEqual([])
    const one = (await create(fresh, customerBody({ name: "Um" }))).body
    const two = (await create(fresh, customerBody({ name: "Dois" }))).body
    expect(await list(fresh)).toEqual([two, one])
    const got = await api.get(`/api/customers/${two.id}`, { key: fresh.key })
    expect(got.status).toBe(200)
    expect(got.body).toEqual(two)
  })

  it("404 for an unknown id, 400 naming id for a non-UUID", async () => {
    const missing = expectError(await api.get(`/api/customers/${randomUUID()}`, { key: a.key }), 404)
    expect(missing.message).toMatch(/customer/i)
    for (const bad of ["123", "not-a-uuid", `${randomUUID()}x`, "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"]) {
      expectFieldErrors(await api.get(`/api/customers/${bad}`, { key: a.key }), ["id"])
      expectFieldErrors(await api.patch(`/api/customers/${bad}`, { name: "X" }, { key: a.key }), ["id"])
      expectFieldErrors(await api.del(`/api/customers/${bad}`, { key: a.key }), ["id"])
    }
  })
})

describe("PATCH /api/customers/{id}", () => {
  it(
    "changes name, email and phone one at a time; omitted fields are " + "unchanged; 200 with the full record",
    async () => {
      const original = (await create(a, customerBody())).body
      const named = await api.patch(`/api/customers/${original.id}`, { name: "Nome Novo" }, { key: a.key })
      expect(named.status, named.text).toBe(200)
      expect(named.body).toEqual({ ...original, name: "Nome Novo" })
      const emailed = await api.patch(`/api/customers/${original.id}`, { email: "novo@example.com" }, { key: a.key })
      expect(emailed.body).toEqual({ ...original, name: "Nome Novo", email: "novo@example.com" })
      const phoned = await api.patch(`/api/customers/${original.id}`, { phone: "(31) 3222-1111" }, { key: a.key })
      const expected = { ...original, name: "Nome Novo", email: "novo@example.com", phone: "(31) 3222-1111" }
      expect(phoned.body).toEqual(expected)
      const all = await api.patch(
        `/api/customers/${original.id}`,
        { name: "Todos", email: "todos@example.com", phone: "(11) 99999-0000" },
        { key: a.key }
      )
      expect(all.body).toEqual({ ...original, name: "Todos", email: "todos@example.com", phone: "(11) 99999-0000" })
      const empty = await api.patch(`/api/customers/${original.id}`, {}, { key: a.key })
      expect(empty.status).toBe(200)
      expect(empty.body).toEqual(all.body)
      expect((await api.get(`/api/customers/${original.id}`, { key: a.key })).body).toEqual(all.body)
    }
  )

  it("400 naming document when it is sent, and nothing changes", async () => {
    const original = (await create(a, customerBody())).body
    for (const document of [freshCpf(), original.document, null]) {
      const reply = await api.patch(`/api/customers/${original.id}`, { name: "Não Muda", document }, { key: a.key })
      expectFieldErrors(reply, ["document"])
    }
    expect((await api.get(`/api/customers/${original.id}`, { key: a.key })).body).toEqual(original)
  })

  it("400 naming bad fields, and nothing changes", async () => {
    const original = (await create(a, customerBody())).body
    const fieldsOf = (body: { errors?: Array<{ field: string }> }) => [...new Set(body.errors?.map((e) => e.field))]
    const empty = expectError(await api.patch(`/api/customers/${original.id}`, { name: "" }, { key: a.key }), 400)
    expect(empty.message).toBe("name must not be empty")
    expect(fieldsOf(empty)).toEqual(["name"])
    const two = expectError(
      await api.patch(`/api/customers/${original.id}`, { email: "bad", phone: "bad" }, { key: a.key }),
      400
    )
    expect(two.message).toMatch(/^email /)
    expect(fieldsOf(two)).toEqual(["email", "phone"])
    const nul = expectError(await api.patch(`/api/customers/${original.id}`, { name: null }, { key: a.key }), 400)
    expect(fieldsOf(nul)).toEqual(["name"])
    expect((await api.get(`/api/customers/${original.id}`, { key: a.key })).body).toEqual(original)
  })

  it("PATCH reports each bad field once", async () => {
    const original = (await create(a, customerBody())).body
    const reply = await api.patch(`/api/customers/${original.id}`, { name: "" }, { key: a.key })
    expect(expectError(reply, 400).errors).toEqual([{ field: "name", message: "name must not be empty" }])
  })

  it("404 for an unknown id", async () => {
    expectError(await api.patch(`/api/customers/${randomUUID()}`, { name: "X" }, { key: a.key }), 404)
  })
})

describe("DELETE /api/customers/{id}", () => {
  it("204 with an empty body; afterwards the id is gone everywhere but in history", async () => {
    const customer = (await create(a, customerBody())).body
    const earlierOrder = await api.post("/api/orders", { customerId: customer.id, amount: 4200 }, { key: a.key })
    expect(earlierOrder.status).toBe(201)

    const deleted = await api.del(`/api/customers/${customer.id}`, { key: a.key })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe("")

    expectError(await api.get(`/api/customers/${customer.id}`, { key: a.key }), 404)
    expectError(await api.patch(`/api/customers/${customer.id}`, { name: "Fantasma" }, { key: a.key }), 404)
    expectError(await api.del(`/api/customers/${customer.id}`, { key: a.key }), 404)
    expect((await list(a)).map((c) => c.id)).not.toContain(customer.id)

    const newOrder = await api.post("/api/orders", { customerId: customer.id, amount: 100 }, { key: a.key })
    expect(expectError(newOrder, 404).message).toBe("customerId not found")

    // History is kept: the earlier order still reads, unchanged.
    const history = await api.get(`/api/orders/${earlierOrder.body.id}`, { key: a.key })
    expect(history.status).toBe(200)
    expect(history.body).toEqual(earlierOrder.body)
    expect((await api.get("/api/orders", { key: a.key })).body.map((o: { id: string }) => o.id)).toContain(
      earlierOrder.body.id
    )
  })

  it("after delete, the same CPF makes a NEW customer (201, new id), which takes orders", async () => {
    const first = (await create(a, customerBody())).body
    expect((await api.del(`/api/customers/${first.id}`, { key: a.key })).status).toBe(204)
    const second = await create(a, customerBody({ document: first.document, name: "Nova Pessoa" }))
    expect(second.status, second.text).toBe(201)
    expect(second.body.id).not.toBe(first.id)
    expect(second.body.name).toBe("Nova Pessoa")
    expectError(await api.get(`/api/customers/${first.id}`, { key: a.key }), 404)
    expect((await list(a)).filter((c) => c.document === first.document).map((c) => c.id)).toEqual([second.body.id])
    expect((await api.post("/api/orders", { customerId: second.body.id, amount: 1 }, { key: a.key })).status).toBe(201)
  })
})

describe("tenant isolation", () => {
  it("account B cannot see, read, change or delete A's customer: 404 everywhere", async () => {
    const customer = (await create(a, customerBody())).body
    expect((await list(b)).map((c) => c.id)).not.toContain(customer.id)
    const get = expectError(await api.get(`/api/customers/${customer.id}`, { key: b.key }), 404)
    const unknown = expectError(await api.get(`/api/customers/${randomUUID()}`, { key: b.key }), 404)
    expect(get).toEqual(unknown) // indistinguishable from a missing one
    expectError(await api.patch(`/api/customers/${customer.id}`, { name: "Hacked" }, { key: b.key }), 404)
    expectError(await api.del(`/api/customers/${customer.id}`, { key: b.key }), 404)
    expect(
      expectError(await api.post("/api/orders", { customerId: customer.id, amount: 100 }, { key: b.key }), 404).message
    ).toBe("customerId not found")
    // A's customer is untouched.
    expect((await api.get(`/api/customers/${customer.id}`, { key: a.key })).body).toEqual(customer)
  })

  it("B can create a customer with A's CPF: a separate record (201)", async () => {
    const mine = (await create(a, customerBody())).body
    const theirs = await create(b, customerBody({ document: mine.document, name: "Outro Cliente" }))
    expect(theirs.status, theirs.text).toBe(201)
    expect(theirs.body.id).not.toBe(mine.id)
    expect(theirs.body.name).toBe("Outro Cliente")
    expect((await api.get(`/api/customers/${mine.id}`, { key: a.key })).body).toEqual(mine)
    expect((await list(b)).map((c) => c.id)).toContain(theirs.body.id)
    expect((await list(a)).map((c) => c.id)).not.toContain(theirs.body.id)
  })
})

describe("inputs PostgreSQL cannot store", () => {
  it("a NUL character in a string field is a 400, never a 500", async () => {
    const reply = await create(a, customerBody({ name: "Maria\u0000Silva" }))
    expect(reply.status, reply.text).toBe(400)
  })
})
