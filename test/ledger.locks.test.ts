import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { blockedBy } from "./support/locks.ts"
import { moneyConfig } from "./support/money.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The ledger's lock order (src/adapters/postgres/LedgerLive.ts byLockOrder; docs/ledger.md "Locks"):
 * receivables before balances, and a party's balance rows in the one order, across every movement of
 * one database transaction. Each test holds, from its own connection, the first lock of a movement that
 * runs concurrently elsewhere (a withdrawal, a settlement job), lets the service's movement block on it,
 * then takes that movement's second lock. In the one order the service waits and both commit; out of
 * order PostgreSQL finds a deadlock after `deadlock_timeout` and aborts one of them.
 */

let server: TestServer
let api: Client
const V1 = "/public/v1"

beforeAll(async () => {
  server = await startTestServer({
    rateLimitPerMinute: 100_000,
    money: moneyConfig()
  })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" })

const create = async (key: string, body: Record<string, unknown>) => {
  const reply = await api.post(`${V1}/transactions`, { amount: 10_000, customer: customer(), ...body }, { token: key })
  expect(reply.status, reply.text).toBe(201)
  return reply.body.data.hash as string
}
const sandbox = (key: string, hash: string, action: string, body?: unknown) =>
  api.post(`/api/sandbox/transactions/${hash}/${action}`, body, { key })

const accountOf = async (hash: string) =>
  (await server.db.query("select account_id from transactions where id = $1", [hash])).rows[0].account_id as string

/** Holds `first` in a transaction of its own while `movement` runs, then takes `second`; both must commit. */
const interleave = async (
  first: readonly [string, ReadonlyArray<unknown>],
  movement: () => Promise<{ status: number; text: string }>,
  second: readonly [string, ReadonlyArray<unknown>]
) => {
  const holder = await server.db.connect()
  try {
    await holder.query("begin")
    expect((await holder.query(first[0], [...first[1]])).rowCount).toBeGreaterThan(0)
    const moved = movement()
    await blockedBy(server.db, holder)
    // Out of order, this is the wait PostgreSQL reports as a deadlock (it may abort either side).
    await holder.query(second[0], [...second[1]])
    await holder.query("commit")
    const reply = await moved
    expect(reply.status, reply.text).toBe(200)
  } finally {
    await holder.query("rollback").catch(() => undefined)
    holder.release()
  }
}

const balanceRow = (book: string) =>
  `select 1 from ledger_balances where account_id = $1 and party = 'merchant' and book = '${book}' for update`

describe("the ledger's lock order", () => {
  it("a PIX paid and settled at once while a withdrawal holds the merchant's available: both commit", async () => {
    const { key } = await signup(api)
    const first = await create(key, { method: "pix" })
    expect((await sandbox(key, first, "pay")).status).toBe(200)
    const accountId = await accountOf(first)
    const hash = await create(key, { method: "pix" })
    // A withdrawal locks available, then pending (LedgerLive.lock); the sale moves pending, and its
    // settlement at once available.
    await interleave([balanceRow("available"), [accountId]], () => sandbox(key, hash, "pay"), [
      balanceRow("pending"),
      [accountId]
    ])
    const read = await api.get(`${V1}/transactions/${hash}`, { token: key })
    expect(read.body.data.status).toBe("paid")
    const balance = await api.get(`${V1}/balance`, { token: key })
    const net = 10_000 - Math.floor((10_000 * 99 + 5_000) / 10_000)
    expect(balance.body.data).toMatchObject({ available: 2 * net, pending: 0, reserved: 0 })
  })

  it("a won chargeback while a settlement job holds one of its receivables: both commit", async () => {
    const { key } = await signup(api)
    const card = { number: CARDS.visa, holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2031", cvv: "123" }
    const hash = await create(key, { method: "credit_card", installments: 3, card })
    const accountId = await accountOf(hash)
    expect((await sandbox(key, hash, "chargeback", { stage: "open" })).status).toBe(200)
    const receivable = (
      await server.db.query(
        "select id from receivables where transaction_id = $1 and settled_at is null order by available_at limit 1",
        [hash]
      )
    ).rows[0].id
    // A settlement job locks its receivable, then the party's balances (Books.settle).
    await interleave(
      ["select 1 from receivables where id = $1 for update", [receivable]],
      () => sandbox(key, hash, "chargeback", { stage: "won" }),
      [
        `select 1 from ledger_balances where account_id = $1 and party = 'merchant'
         order by book collate "C" for update`,
        [accountId]
      ]
    )
    const read = await api.get(`${V1}/transactions/${hash}`, { token: key })
    expect(read.body.data.status).toBe("paid")
  })

  it("a sandbox settle aborted as a deadlock's victim is run again: 200, each receivable settled once", async () => {
    const { key } = await signup(api)
    const card = { number: CARDS.visa, holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2031", cvv: "123" }
    const hash = await create(key, { method: "credit_card", installments: 3, card })
    const accountId = await accountOf(hash)
    const before = await api.get(`${V1}/balance`, { token: key })
    const due = (
      await server.db.query(
        `select id, amount::int from receivables
         where transaction_id = $1 and balance = 'pending' and settled_at is null`,
        [hash]
      )
    ).rows as Array<{ id: string; amount: number }>
    expect(due.length).toBe(3)
    // The merchant's balance rows as a first settlement finds them (LedgerLive.lock makes them).
    await server.db.query(
      `insert into ledger_balances (account_id, party, book) values ($1, 'merchant', 'available')
       on conflict do nothing`,
      [accountId]
    )
    const holder = await server.db.connect()
    try {
      await holder.query("begin")
      // The holder waits longer than the service before looking for a cycle: the service's transaction is
      // the one PostgreSQL aborts (deadlock_timeout is 1 s there).
      await holder.query("set local deadlock_timeout = '20s'")
      expect((await holder.query(balanceRow("available"), [accountId])).rowCount).toBe(1)
      // The settle locks the sale's receivables, then waits for the merchant's balances the holder has...
      const settled = sandbox(key, hash, "settle")
      await blockedBy(server.db, holder)
      // ...which then asks for those receivables: a cycle, broken by aborting the settle.
      await holder.query("select 1 from receivables where transaction_id = $1 and settled_at is null for update", [
        hash
      ])
      await holder.query("commit")
      const reply = await settled
      expect(reply.status, reply.text).toBe(200)
    } finally {
      await holder.query("rollback").catch(() => undefined)
      holder.release()
    }
    const entries = await server.db.query(
      "select key from ledger_entries where account_id = $1 and key = any($2::text[])",
      [accountId, due.map((r) => `settle:${r.id}`)]
    )
    expect(entries.rowCount).toBe(3)
    const after = await api.get(`${V1}/balance`, { token: key })
    const moved = due.reduce((s, r) => s + r.amount, 0)
    expect(after.body.data.available).toBe(before.body.data.available + moved)
    expect(after.body.data.pending).toBe(before.body.data.pending - moved)
  })
})
