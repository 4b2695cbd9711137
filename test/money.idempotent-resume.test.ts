import { randomInt, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, type Reply, signup } from "./support/http.ts"
import { CARDS, freshCpf, REFUND } from "./support/payments.ts"
import { moneyConfig } from "./support/money.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A refund or a withdrawal retried with its Idempotency-Key after the first attempt died mid-way
 * (docs/decisions.md "Refunds and withdrawals resumed"): the retry takes the dead claim over with the
 * same refund or withdrawal id, finds what that id already recorded and resumes it — a finished one
 * answers as the first attempt did, a refund still PENDING is driven to its outcome — never reserving,
 * posting or refunding twice.
 * Real HTTP, real PostgreSQL; every balance is computed here from the contract's rules, to the centavo.
 */

let server: TestServer
let api: Client

const V1 = "/public/v1"
// Fees of CONTRACT-v1 §7 (as test/money.ledger.test.ts): round half up of amount × percent.
const pct = (amount: number, hundredths: number) => Math.floor((amount * hundredths + 5_000) / 10_000)
const cardFee = (amount: number) => pct(amount, 399)
const pixFee = (amount: number) => pct(amount, 99)
const returned = (fee: number, refunded: number, total: number) =>
  Math.floor((2 * fee * refunded + total) / (2 * total))
const RESERVE_PERCENT = 10

beforeAll(async () => {
  server = await startTestServer({
    rateLimitPerMinute: 100_000,
    // The withdrawal stays pending while the test looks at it.
    money: moneyConfig({ withdrawalDelaySeconds: 3_600 })
  })
  api = client(server.baseUrl)
})

afterAll(async () => {
  await server?.close()
})

const merchant = async () => {
  const { accountId, key } = await signup(api)
  return { accountId, key }
}
type Merchant = Awaited<ReturnType<typeof merchant>>

const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" })

const paidCard = async (m: Merchant, amount: number) => {
  const created = await api.post(
    `${V1}/transactions`,
    {
      method: "credit_card",
      amount,
      installments: 1,
      customer: customer(),
      card: {
        number: CARDS.visa,
        holder_name: "MARIA SILVA",
        exp_month: "12",
        exp_year: String(new Date().getUTCFullYear() + 3),
        cvv: "123"
      }
    },
    { token: m.key }
  )
  expect(created.status, created.text).toBe(201)
  expect(created.body.data.status).toBe("paid")
  return created.body.data.hash as string
}

const paidPix = async (m: Merchant, amount: number) => {
  const created = await api.post(
    `${V1}/transactions`,
    { method: "pix", amount, customer: customer() },
    { token: m.key }
  )
  expect(created.status, created.text).toBe(201)
  const paid = await api.post(`/api/sandbox/transactions/${created.body.data.hash}/pay`, undefined, { key: m.key })
  expect(paid.status, paid.text).toBe(200)
  return created.body.data.hash as string
}

const withKey = (m: Merchant, idempotencyKey: string, v1: boolean) =>
  v1
    ? { token: m.key, headers: { "idempotency-key": idempotencyKey } }
    : { key: m.key, headers: { "idempotency-key": idempotencyKey } }

const v1Refund = (m: Merchant, idem: string, hash: string, amount?: number) =>
  api.post(`${V1}/transactions/${hash}/refund`, amount === undefined ? {} : { amount }, withKey(m, idem, true))

const v2Refund = (m: Merchant, idem: string, transactionId: string, amount?: number) =>
  api.post(REFUND, amount === undefined ? { transactionId } : { transactionId, amount }, withKey(m, idem, false))

/** The merchant's balances, read from the books themselves. */
const balances = async (m: Merchant) => ({
  available: 0,
  pending: 0,
  reserved: 0,
  ...Object.fromEntries(
    (
      await server.db.query<{ book: string; amount: string }>(
        "select book, amount from ledger_balances where account_id = $1 and party = 'merchant'",
        [m.accountId]
      )
    ).rows.map((r) => [r.book, Number(r.amount)])
  )
})

/**
 * Puts the key's claim back to what a process killed mid-request leaves (migrations 0012 and 0017): no
 * response stored, the lease run out, and an owner whose session advisory lock is gone with its process.
 */
const killedMidRequest = async (m: Merchant, idem: string) => {
  let dead = randomInt(1, 2 ** 31 - 1)
  while ((await server.db.query<{ alive: boolean }>("select claim_owner_alive($1) as alive", [dead])).rows[0]!.alive) {
    dead = randomInt(1, 2 ** 31 - 1)
  }
  const updated = await server.db.query(
    `update idempotency_keys set response_status = null, response_body = null,
       locked_until = now() - interval '1 second', owner = $3
     where account_id = $1 and key = $2`,
    [m.accountId, idem, dead]
  )
  expect(updated.rowCount).toBe(1)
}

/**
 * Makes the database transaction that records the provider's answer to a refund of this transaction
 * fail, as if the process died after the refund was reserved and the provider asked (case B): the
 * reservation and the PENDING row stay committed, the answer is never recorded.
 */
const dieBeforeRecording = async (transactionId: string) => {
  expect(transactionId).toMatch(/^[0-9a-f-]{36}$/)
  await server.db.query(`create or replace function test_die_before_recording() returns trigger
    language plpgsql as $$ begin raise exception 'the process died before recording the answer'; end $$`)
  await server.db.query(`create trigger test_die_before_recording before update on refunds for each row
    when (new.status <> 'PENDING' and new.transaction_id = '${transactionId}')
    execute function test_die_before_recording()`)
}
const liveAgain = () => server.db.query("drop trigger if exists test_die_before_recording on refunds")

const refundRows = async (transactionId: string) =>
  (
    await server.db.query<{ id: string; amount: string; status: string; completed_at: Date | null }>(
      "select id, amount::text, status, completed_at from refunds where transaction_id = $1",
      [transactionId]
    )
  ).rows

const entries = async (m: Merchant, key: string) =>
  Number(
    (
      await server.db.query<{ n: string }>(
        "select count(*)::text as n from ledger_entries where account_id = $1 and key = $2",
        [m.accountId, key]
      )
    ).rows[0]!.n
  )

const refundEvents = async (transactionId: string) =>
  (
    await server.db.query<{ type: string }>(
      "select type from events where transaction_id = $1 and type like '%refund%' order by created_at",
      [transactionId]
    )
  ).rows.map((r) => r.type)

/** Exactly one refund of `amount` recorded SUCCEEDED for the transaction, posted once, announced once. */
const expectOneRefund = async (m: Merchant, transactionId: string, amount: number) => {
  const rows = await refundRows(transactionId)
  expect(rows.map((r) => [r.amount, r.status])).toEqual([[String(amount), "SUCCEEDED"]])
  expect(await entries(m, `refund:${rows[0]!.id}`)).toBe(1)
  expect(await refundEvents(transactionId)).toHaveLength(1)
}

const transactionRow = async (transactionId: string) =>
  (
    await server.db.query<{ status: string; refunded_amount: string; refund_reserved: string }>(
      "select status, refunded_amount::text, refund_reserved::text from transactions where id = $1",
      [transactionId]
    )
  ).rows[0]!

/** The retry after the kill answers exactly as the first attempt did; a third send replays it. */
const expectSameAnswer = async (first: Reply, send: () => Promise<Reply>) => {
  const again = await send()
  expect([again.status, again.text]).toEqual([first.status, first.text])
  expect(again.headers.get("idempotent-replayed")).toBeNull()
  const replay = await send()
  expect([replay.status, replay.text]).toEqual([first.status, first.text])
  expect(replay.headers.get("idempotent-replayed")).toBe("true")
}

describe("a refund retried after its first attempt died (case A: the refund was recorded)", () => {
  it("a full card refund answers its 200 again, not 409 already_refunded; refunded once", async () => {
    const m = await merchant()
    const hash = await paidCard(m, 10_000)
    const idem = randomUUID()
    const send = () => v2Refund(m, idem, hash)
    const first = await send()
    expect(first.status, first.text).toBe(200)
    expect(first.body).toMatchObject({ transactionId: hash, status: "REFUNDED", refundedAmount: 10_000 })
    // Refunded in full before settlement: the sale left the merchant as if it never was.
    expect(await balances(m)).toEqual({ available: 0, pending: 0, reserved: 0 })

    await killedMidRequest(m, idem)
    await expectSameAnswer(first, send)

    await expectOneRefund(m, hash, 10_000)
    expect(await refundEvents(hash)).toEqual(["transaction.refunded"])
    expect(await transactionRow(hash)).toEqual({ status: "REFUNDED", refunded_amount: "10000", refund_reserved: "0" })
    expect(await balances(m)).toEqual({ available: 0, pending: 0, reserved: 0 })
  })

  it("a partial card refund (v1) answers its 200 again, not a 500 on the reused id; refunded once", async () => {
    const m = await merchant()
    const hash = await paidCard(m, 10_000)
    const idem = randomUUID()
    const send = () => v1Refund(m, idem, hash, 3_000)
    const first = await send()
    expect(first.status, first.text).toBe(200)
    expect(first.body.data).toMatchObject({ hash, refunded_amount: 3_000 })
    // The refund less its share of the fee comes out of the sale's own pending receivable first.
    const net = 10_000 - cardFee(10_000)
    const reserve = Math.floor((net * RESERVE_PERCENT) / 100)
    const after = {
      available: 0,
      pending: net - reserve - (3_000 - returned(cardFee(10_000), 3_000, 10_000)),
      reserved: reserve
    }
    expect(await balances(m)).toEqual(after)

    await killedMidRequest(m, idem)
    await expectSameAnswer(first, send)

    await expectOneRefund(m, hash, 3_000)
    expect(await transactionRow(hash)).toMatchObject({ refunded_amount: "3000", refund_reserved: "0" })
    expect(await balances(m)).toEqual(after)
  })

  it("a partial PIX refund answers its 200 again; refunded once", async () => {
    const m = await merchant()
    const hash = await paidPix(m, 10_000)
    const idem = randomUUID()
    const send = () => v2Refund(m, idem, hash, 3_000)
    const first = await send()
    expect(first.status, first.text).toBe(200)
    expect(first.body).toMatchObject({ status: "PARTIAL_REFUND", refundedAmount: 3_000 })
    const after = {
      available: 10_000 - pixFee(10_000) - (3_000 - returned(pixFee(10_000), 3_000, 10_000)),
      pending: 0,
      reserved: 0
    }
    expect(await balances(m)).toEqual(after)

    await killedMidRequest(m, idem)
    await expectSameAnswer(first, send)

    await expectOneRefund(m, hash, 3_000)
    expect(await balances(m)).toEqual(after)
  })
})

describe("a refund retried after its first attempt died before recording the provider's answer (case B)", () => {
  it("a PIX refund left PENDING is asked of the PSP again (same id) and concluded: 200, refunded once", async () => {
    const m = await merchant()
    const hash = await paidPix(m, 10_000)
    const idem = randomUUID()
    const send = () => v1Refund(m, idem, hash, 4_000)
    await dieBeforeRecording(hash)
    let died: Reply
    try {
      died = await send()
    } finally {
      await liveAgain()
    }
    expect(died.status, died.text).toBeGreaterThanOrEqual(500)
    // What the kill left: the refund reserved and taken from the balance, its answer never recorded.
    const after = {
      available: 10_000 - pixFee(10_000) - (4_000 - returned(pixFee(10_000), 4_000, 10_000)),
      pending: 0,
      reserved: 0
    }
    expect((await refundRows(hash)).map((r) => r.status)).toEqual(["PENDING"])
    expect(await transactionRow(hash)).toMatchObject({ refunded_amount: "0", refund_reserved: "4000" })
    expect(await balances(m)).toEqual(after)

    await killedMidRequest(m, idem)
    const again = await send()
    expect(again.status, again.text).toBe(200)
    // What a first attempt that lived would have answered: the transaction as the refund left it.
    const fresh = await api.get(`${V1}/transactions/${hash}`, { token: m.key })
    expect(again.body).toEqual(fresh.body)
    expect(again.body.data).toMatchObject({ hash, refunded_amount: 4_000 })

    await expectOneRefund(m, hash, 4_000)
    expect(await transactionRow(hash)).toMatchObject({ refunded_amount: "4000", refund_reserved: "0" })
    expect(await balances(m)).toEqual(after)
    const replay = await send()
    expect([replay.status, replay.text]).toEqual([200, again.text])
  })

  it("a card refund left PENDING is not sent again: it stays PENDING, reserved, for an operator", async () => {
    const m = await merchant()
    const hash = await paidCard(m, 10_000)
    const net = 10_000 - cardFee(10_000)
    const reserve = Math.floor((net * RESERVE_PERCENT) / 100)
    const sale = { available: 0, pending: net - reserve, reserved: reserve }
    expect(await balances(m)).toEqual(sale)
    const idem = randomUUID()
    const send = () => v2Refund(m, idem, hash)
    await dieBeforeRecording(hash)
    let died: Reply
    try {
      died = await send()
    } finally {
      await liveAgain()
    }
    expect(died.status, died.text).toBeGreaterThanOrEqual(500)
    expect((await refundRows(hash)).map((r) => r.status)).toEqual(["PENDING"])
    expect(await balances(m)).toEqual({ available: 0, pending: 0, reserved: 0 })

    await killedMidRequest(m, idem)
    const again = await send()
    // The acquirer's refund carries no idempotency key and the port cannot ask what was refunded
    // (docs/providers.md "Known limits"): whether it refunded is unknown, so it is neither sent again nor
    // recorded failed with the money handed back (the buyer may have it); an operator concludes it.
    expect(again.status, again.text).toBe(200)
    expect(again.body).toMatchObject({ status: "CAPTURED", refundedAmount: 0 })
    expect((await refundRows(hash)).map((r) => [r.amount, r.status])).toEqual([["10000", "PENDING"]])
    expect(await transactionRow(hash)).toEqual({ status: "CAPTURED", refunded_amount: "0", refund_reserved: "10000" })
    expect(await refundEvents(hash)).toEqual([])
    expect(await balances(m)).toEqual({ available: 0, pending: 0, reserved: 0 })
    const replay = await send()
    expect([replay.status, replay.text]).toEqual([200, again.text])
  })
})

describe("a withdrawal retried after its first attempt died", () => {
  it("answers its 201 again, not a 500 on the reused id; the money left once", async () => {
    const m = await merchant()
    await paidPix(m, 10_000)
    const available = 10_000 - pixFee(10_000)
    expect(await balances(m)).toEqual({ available, pending: 0, reserved: 0 })
    const idem = randomUUID()
    const bank = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }
    const send = () => api.post(`${V1}/withdrawals`, { amount: 5_000, bank_account: bank }, withKey(m, idem, true))
    const first = await send()
    expect(first.status, first.text).toBe(201)
    expect(first.body.data).toMatchObject({ amount: 5_000, status: "pending" })
    expect(await balances(m)).toEqual({ available: available - 5_000, pending: 0, reserved: 0 })

    await killedMidRequest(m, idem)
    await expectSameAnswer(first, send)

    const rows = await server.db.query<{ id: string }>("select id from withdrawals where account_id = $1", [
      m.accountId
    ])
    expect(rows.rows.map((r) => r.id)).toEqual([first.body.data.id])
    expect(await entries(m, `withdraw:${first.body.data.id}`)).toBe(1)
    expect(await balances(m)).toEqual({ available: available - 5_000, pending: 0, reserved: 0 })
  })
})
