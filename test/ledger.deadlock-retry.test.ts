import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, freshCpf } from "./support/payments.ts"
import { blockedBy } from "./support/locks.ts"
import { moneyConfig } from "./support/money.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Movements run again as deadlock victims (Transactional.retrying, docs/ledger.md "Deadlock victims are
 * run again"): what they count in process memory is counted once committed, and a withdrawal is one of
 * them. Each test makes the service's transaction the victim of a lock cycle, as test/ledger.locks.test.ts
 * does: the holder waits 20 s before looking for a cycle, the service 1 s, so PostgreSQL aborts the
 * service's side.
 */

let server: TestServer
let api: Client
const V1 = "/public/v1"
const BANK = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000, money: moneyConfig() })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" })
const sandbox = (key: string, hash: string, action: string, body?: unknown) =>
  api.post(`/api/sandbox/transactions/${hash}/${action}`, body, { key })
const accountOf = async (hash: string) =>
  (await server.db.query("select account_id from transactions where id = $1", [hash])).rows[0].account_id as string
const metric = async (pattern: RegExp) => Number(pattern.exec(await (await fetch(server.metricsUrl)).text())?.[1] ?? 0)

describe("a deadlock's victim run again", () => {
  it("a won chargeback run again after a deadlock counts disputes_total{won} once", async () => {
    const { key } = await signup(api)
    const card = { number: CARDS.visa, holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2031", cvv: "123" }
    const created = await api.post(
      `${V1}/transactions`,
      { method: "credit_card", amount: 10_000, installments: 1, customer: customer(), card },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const hash = created.body.data.hash as string
    expect((await sandbox(key, hash, "chargeback", { stage: "open" })).status).toBe(200)
    // The dispute drew on the pending receivable; the sandbox settle now settles it (at 0).
    expect((await sandbox(key, hash, "settle")).status).toBe(200)
    const settled = (
      await server.db.query(
        `select r.id from receivables r join ledger_holds h on h.receivable_id = r.id
         where r.transaction_id = $1 and r.settled_at is not null and h.released_at is null limit 1`,
        [hash]
      )
    ).rows[0]?.id as string
    expect(settled).toBeDefined()
    const won = /^disputes_total\{kind="chargeback",outcome="won"\} (\d+)/m
    const postings = /^ledger_postings_total\{type="chargeback"\} (\d+)/m
    const before = { won: await metric(won), postings: await metric(postings) }

    const holder = await server.db.connect()
    try {
      await holder.query("begin")
      await holder.query("set local deadlock_timeout = '20s'")
      // Books.restore locks a hold's settled receivable after closeDispute counted the dispute won.
      await holder.query("select 1 from receivables where id = $1 for update", [settled])
      const reply = sandbox(key, hash, "chargeback", { stage: "won" })
      await blockedBy(server.db, holder)
      // ...and the service holds the transaction's row: a cycle, broken by aborting the service's side.
      await holder.query("select 1 from transactions where id = $1 for update", [hash])
      await holder.query("commit")
      const r = await reply
      expect(r.status, r.text).toBe(200)
      expect(r.body.status).toBe("PAID")
    } finally {
      await holder.query("rollback").catch(() => undefined)
      holder.release()
    }
    // One dispute won, one entry posted.
    const entries = await server.db.query("select key from ledger_entries where key like $1", [`dispute:${hash}:%:won`])
    expect(entries.rowCount).toBe(1)
    expect(await metric(won)).toBe(before.won + 1)
  })

  it("a withdrawal aborted as a deadlock's victim is run again: 201, the money taken once", async () => {
    const { key } = await signup(api)
    const pix = await api.post(
      `${V1}/transactions`,
      { method: "pix", amount: 10_000, customer: customer() },
      { token: key }
    )
    expect(pix.status, pix.text).toBe(201)
    const hash = pix.body.data.hash as string
    expect((await sandbox(key, hash, "pay")).status).toBe(200)
    const accountId = await accountOf(hash)
    const row = (book: string) =>
      `select 1 from ledger_balances where account_id = $1 and party = 'merchant' and book = '${book}' for update`
    const holder = await server.db.connect()
    try {
      await holder.query("begin")
      await holder.query("set local deadlock_timeout = '20s'")
      // LedgerLive.lock takes available, then pending: the withdrawal holds available and waits here...
      expect((await holder.query(row("pending"), [accountId])).rowCount).toBe(1)
      const reply = api.post(`${V1}/withdrawals`, { amount: 5_000, bank_account: BANK }, { token: key })
      await blockedBy(server.db, holder)
      // ...while the holder asks for available: a cycle, broken by aborting the withdrawal.
      await holder.query(row("available"), [accountId])
      await holder.query("commit")
      const r = await reply
      // A movement of the books that does nothing outside the database: retried, it would be created.
      expect(r.status, r.text).toBe(201)
    } finally {
      await holder.query("rollback").catch(() => undefined)
      holder.release()
    }
    const withdrawals = await server.db.query(
      "select count(*)::int as n from ledger_entries where account_id = $1 and key like 'withdraw:%'",
      [accountId]
    )
    expect(withdrawals.rows[0].n).toBe(1)
    // The sale's net (PIX fee 0.99 %, half up) less the one withdrawal.
    const net = 10_000 - Math.floor((10_000 * 99 + 5_000) / 10_000)
    const balance = await api.get(`${V1}/balance`, { token: key })
    expect(balance.body.data.available).toBe(net - 5_000)
  })
})
