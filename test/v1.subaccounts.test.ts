import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cnpjCheckDigits } from "../src/domain/document.ts"
import { freshCpf } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * /public/v1 subaccounts (CONTRACT-v1 §8, conventions §1) through real HTTP on real PostgreSQL: creation
 * with each kind of document, validation naming v1 paths, the per-account document uniqueness (also under
 * concurrency), lists with pagination and filters, reads scoped by account.
 */

let server: TestServer
let api: Client
let key: string
let other: string

const V1 = "/public/v1"
const OFFSET_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-03:00$/

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
  other = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const bearer = (k = key) => ({ token: k })

let serial = 0
/** A fresh CNPJ, numeric or alphanumeric (12 characters [0-9A-Z] and 2 numeric check digits). */
const freshCnpj = (alphanumeric = false) => {
  serial += 1
  const pid = String(process.pid % 1000).padStart(3, "0")
  const clock = String(Date.now() % 1000).padStart(3, "0")
  const base = `${alphanumeric ? "AB" : "12"}${pid}${clock}${String(serial).padStart(4, "0")}`
  return base + cnpjCheckDigits(base)
}

const bankAccount = (overrides: Record<string, unknown> = {}) => ({
  bank_code: "341",
  agency: "0001",
  agency_digit: "",
  account: "0123456",
  account_digit: "x",
  type: "checking",
  ...overrides
})
const body = (overrides: Record<string, unknown> = {}) => ({
  name: "Loja Parceira Ltda",
  document: freshCpf(),
  email: "financeiro@parceira.example",
  phone: "+55 (11) 3123-4567",
  bank_account: bankAccount(),
  ...overrides
})
const create = (b: Record<string, unknown>, options: Record<string, unknown> = bearer()) =>
  api.post(`${V1}/subaccounts`, b, options)

describe("POST /public/v1/subaccounts", () => {
  it("201 with a CPF: the v1 envelope, the document and phone without punctuation, São Paulo offsets", async () => {
    const cpf = freshCpf()
    const punctuated = `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`
    const reply = await create(body({ document: punctuated }))
    expect(reply.status).toBe(201)
    expect(reply.body.success).toBe(true)
    const s = reply.body.data
    expect(s).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "Loja Parceira Ltda",
      document: cpf,
      document_type: "cpf",
      email: "financeiro@parceira.example",
      phone: "1131234567",
      bank_account: {
        bank_code: "341",
        agency: "0001",
        agency_digit: null,
        account: "0123456",
        account_digit: "X",
        type: "checking"
      },
      status: "active",
      created_at: expect.stringMatching(OFFSET_ISO),
      updated_at: expect.stringMatching(OFFSET_ISO)
    })
    const read = await api.get(`${V1}/subaccounts/${s.id}`, bearer())
    expect(read.status).toBe(200)
    expect(read.body).toEqual({ success: true, data: s })
  })

  it("201 with a numeric CNPJ and with an alphanumeric one (lower case and punctuation accepted)", async () => {
    const numeric = await create(body({ document: freshCnpj(), bank_account: bankAccount({ type: "savings" }) }))
    expect(numeric.status).toBe(201)
    expect(numeric.body.data).toMatchObject({ document_type: "cnpj", bank_account: { type: "savings" } })

    const published = await create(body({ document: "12.abc.345/01de-35" }), bearer(other))
    expect(published.status).toBe(201)
    expect(published.body.data).toMatchObject({ document: "12ABC34501DE35", document_type: "cnpj" })

    const alnum = freshCnpj(true)
    const made = await create(body({ document: alnum, bank_account: bankAccount({ agency_digit: "7" }) }))
    expect(made.status).toBe(201)
    expect(made.body.data).toMatchObject({
      document: alnum,
      document_type: "cnpj",
      bank_account: { agency_digit: "7" }
    })
  })

  it("400 names each broken field by its v1 path", async () => {
    const cpf = freshCpf()
    const wrongDigit = `${cpf.slice(0, 10)}${(Number(cpf[10]) + 1) % 10}`
    const cases: ReadonlyArray<[Record<string, unknown>, string]> = [
      [{ name: "  " }, "name"],
      [{ name: "x".repeat(256) }, "name"],
      [{ document: wrongDigit }, "document"],
      [{ document: "11111111111" }, "document"],
      [{ document: "12ABC34501DE36" }, "document"],
      [{ email: "not-an-email" }, "email"],
      [{ phone: "1234" }, "phone"],
      [{ phone: "(11) 91234-56789" }, "phone"],
      [{ bank_account: bankAccount({ bank_code: "34" }) }, "bank_account.bank_code"],
      [{ bank_account: bankAccount({ agency: "123456" }) }, "bank_account.agency"],
      [{ bank_account: bankAccount({ agency_digit: "12" }) }, "bank_account.agency_digit"],
      [{ bank_account: bankAccount({ account: "1234567890123" }) }, "bank_account.account"],
      [{ bank_account: bankAccount({ account_digit: "" }) }, "bank_account.account_digit"],
      [{ bank_account: bankAccount({ type: "current" }) }, "bank_account.type"],
      [{ bank_account: bankAccount({ agency: 1 }) }, "bank_account.agency"],
      [{ bank_account: "341/0001/123456-7" }, "bank_account"],
      [{ bank_account: undefined }, "bank_account"]
    ]
    for (const [overrides, field] of cases) {
      const reply = await create(body(overrides))
      expect(reply.status, JSON.stringify(overrides)).toBe(400)
      expect(reply.body).toMatchObject({ success: false, statusCode: 400, code: "validation_failed" })
      expect(reply.body.errors, JSON.stringify(overrides)).toEqual([{ field, message: expect.stringContaining(field) }])
    }
  })

  it("400 names every broken field at once; a missing one too", async () => {
    const reply = await create({
      name: "",
      document: "123",
      email: "x",
      phone: "1",
      bank_account: { bank_code: "1", agency: "", account: "a", type: "x" }
    })
    expect(reply.status).toBe(400)
    expect(reply.body.errors.map((e: { field: string }) => e.field)).toEqual([
      "name",
      "document",
      "email",
      "phone",
      "bank_account.bank_code",
      "bank_account.agency",
      "bank_account.account",
      "bank_account.account_digit",
      "bank_account.type"
    ])
    const missing = await create({ name: "Loja", bank_account: bankAccount() })
    expect(missing.status).toBe(400)
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["document", "email", "phone"])
  })

  it("409 subaccount_exists for a document the account already uses, however it is punctuated", async () => {
    const cpf = freshCpf()
    expect((await create(body({ document: cpf }))).status).toBe(201)
    const again = await create(body({ document: `${cpf.slice(0, 9)}-${cpf.slice(9)}`, name: "Outra" }))
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ success: false, statusCode: 409, code: "subaccount_exists" })
    // Another account may use the same document.
    expect((await create(body({ document: cpf }), bearer(other))).status).toBe(201)
  })

  it("two concurrent creations of one document: exactly one 201 and one 409", async () => {
    for (let round = 0; round < 3; round++) {
      const document = freshCnpj()
      const replies = await Promise.all([create(body({ document })), create(body({ document, name: "Segunda" }))])
      expect(replies.map((r) => r.status).sort()).toEqual([201, 409])
      const listed = await api.get(`${V1}/subaccounts?document=${document}`, bearer())
      expect(listed.body.pagination.total).toBe(1)
    }
  })

  it("honours Idempotency-Key: a replay answers the same 201 byte for byte; another body is 422", async () => {
    const idem = randomUUID()
    const b = body()
    const first = await create(b, { token: key, headers: { "idempotency-key": idem } })
    const replay = await create(b, { token: key, headers: { "idempotency-key": idem } })
    expect(first.status).toBe(201)
    expect(replay.status).toBe(201)
    expect(replay.text).toBe(first.text)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    const reused = await create(body(), { token: key, headers: { "idempotency-key": idem } })
    expect(reused.status).toBe(422)
    expect(reused.body).toMatchObject({ success: false, code: "idempotency_key_reused" })
  })

  it("401 without a key", async () => {
    const reply = await api.post(`${V1}/subaccounts`, body())
    expect(reply.status).toBe(401)
    expect(reply.body).toMatchObject({ success: false, code: "invalid_api_key" })
  })
})

describe("restricted keys (scope resource `subaccounts`)", () => {
  it("subaccounts:read lists and reads but may not create; another resource's scope gets 403", async () => {
    const { key: restricted } = await signup(api)
    const made = (await create(body(), bearer(restricted))).body.data
    const prefix = restricted.slice(0, 16)
    await server.db.query("update api_keys set scopes = $1 where key_prefix = $2", [["subaccounts:read"], prefix])
    expect((await api.get(`${V1}/subaccounts`, bearer(restricted))).status).toBe(200)
    expect((await api.get(`${V1}/subaccounts/${made.id}`, bearer(restricted))).status).toBe(200)
    const write = await create(body(), bearer(restricted))
    expect(write.status).toBe(403)
    expect(write.body).toMatchObject({ success: false, code: "insufficient_permissions" })
    await server.db.query("update api_keys set scopes = $1 where key_prefix = $2", [["transactions:*"], prefix])
    expect((await api.get(`${V1}/subaccounts`, bearer(restricted))).status).toBe(403)
  })
})

describe("GET /public/v1/subaccounts/{id}", () => {
  it("404 for another account's, an unknown and a malformed id", async () => {
    const mine = (await create(body())).body.data
    for (const [id, k] of [
      [mine.id, other],
      [randomUUID(), key],
      ["not-a-uuid", key]
    ]) {
      const reply = await api.get(`${V1}/subaccounts/${id}`, bearer(k))
      expect(reply.status, id).toBe(404)
      expect(reply.body).toMatchObject({ success: false, statusCode: 404 })
    }
  })
})

describe("GET /public/v1/subaccounts", () => {
  it("lists newest first with pagination and filters; only the account's own", async () => {
    const { key: fresh } = await signup(api)
    const made = []
    for (let i = 0; i < 5; i++) made.push((await create(body({ name: `Parceira ${i}` }), bearer(fresh))).body.data)
    const page1 = await api.get(`${V1}/subaccounts?per_page=2`, bearer(fresh))
    expect(page1.status).toBe(200)
    expect(page1.body.success).toBe(true)
    expect(page1.body.pagination).toEqual({
      page: 1,
      per_page: 2,
      total: 5,
      total_pages: 3,
      next_cursor: expect.any(String)
    })
    expect(page1.body.data.map((s: { id: string }) => s.id)).toEqual([made[4].id, made[3].id])
    const page3 = await api.get(`${V1}/subaccounts?per_page=2&page=3`, bearer(fresh))
    expect(page3.body.data.map((s: { id: string }) => s.id)).toEqual([made[0].id])
    const all = await api.get(`${V1}/subaccounts`, bearer(fresh))
    expect(all.body.pagination).toEqual({ page: 1, per_page: 20, total: 5, total_pages: 1, next_cursor: null })
    expect(all.body.data.map((s: { id: string }) => s.id)).toEqual(made.map((s) => s.id).reverse())

    const beyond = await api.get(`${V1}/subaccounts?page=9`, bearer(fresh))
    expect(beyond.status).toBe(200)
    expect(beyond.body.data).toEqual([])

    const doc = made[2].document as string
    const punctuated = `${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}`
    const byDocument = await api.get(`${V1}/subaccounts?document=${punctuated}`, bearer(fresh))
    expect(byDocument.body.data.map((s: { id: string }) => s.id)).toEqual([made[2].id])
    expect((await api.get(`${V1}/subaccounts?document=${doc}`, bearer(other))).body.data).toEqual([])

    const active = await api.get(`${V1}/subaccounts?status=active`, bearer(fresh))
    expect(active.body.pagination.total).toBe(5)

    const today = new Date().toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" })
    const dated = await api.get(`${V1}/subaccounts?created_from=${today}&created_to=${today}`, bearer(fresh))
    expect(dated.body.pagination.total).toBe(5)
    const before = await api.get(`${V1}/subaccounts?created_to=2020-01-01`, bearer(fresh))
    expect(before.body.pagination.total).toBe(0)
    const after = await api.get(`${V1}/subaccounts?created_from=2999-01-01`, bearer(fresh))
    expect(after.body.pagination.total).toBe(0)
  })

  it("the São Paulo day bounds created_from and created_to (inclusive)", async () => {
    const { key: fresh, accountId } = await signup(api)
    const early = (await create(body(), bearer(fresh))).body.data
    const late = (await create(body(), bearer(fresh))).body.data
    // 2026-03-10 00:00 and 23:59:59 in São Paulo (UTC−3): 03:00Z that day and 02:59:59Z the next.
    await server.db.query("update subaccounts set created_at = $1 where id = $2 and account_id = $3", [
      "2026-03-10T03:00:00Z",
      early.id,
      accountId
    ])
    await server.db.query("update subaccounts set created_at = $1 where id = $2 and account_id = $3", [
      "2026-03-11T02:59:59Z",
      late.id,
      accountId
    ])
    const day = await api.get(`${V1}/subaccounts?created_from=2026-03-10&created_to=2026-03-10`, bearer(fresh))
    expect(day.body.data.map((s: { id: string }) => s.id)).toEqual([late.id, early.id])
    expect(day.body.data[0].created_at).toBe("2026-03-10T23:59:59-03:00")
    const next = await api.get(`${V1}/subaccounts?created_from=2026-03-11`, bearer(fresh))
    expect(next.body.pagination.total).toBe(0)
    const previous = await api.get(`${V1}/subaccounts?created_to=2026-03-09`, bearer(fresh))
    expect(previous.body.pagination.total).toBe(0)
  })

  it("400 names each bad parameter, all at once", async () => {
    for (const [query, field] of [
      ["page=0", "page"],
      ["page=x", "page"],
      ["per_page=101", "per_page"],
      ["per_page=0", "per_page"],
      ["status=inactive", "status"],
      ["created_from=2026-13-01", "created_from"],
      ["created_to=2026-02-30", "created_to"],
      ["created_to=22/11/2026", "created_to"]
    ]) {
      const bad = await api.get(`${V1}/subaccounts?${query}`, bearer())
      expect(bad.status, query).toBe(400)
      expect(bad.body).toMatchObject({ success: false, statusCode: 400 })
      expect(
        bad.body.errors.map((e: { field: string }) => e.field),
        query
      ).toEqual([field])
    }
    const many = await api.get(`${V1}/subaccounts?page=0&status=blocked&created_from=x`, bearer())
    expect(many.body.errors.map((e: { field: string }) => e.field)).toEqual(["page", "created_from", "status"])
  })
})
