import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Discrepancy } from "../src/ports/Ledger.ts"
import { runCli } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { boletoBody, eventually, freshCpf, newOrder, PROCESS, REFUND, v1Card } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { checkLedger } from "./support/ledger-check.ts"

/**
 * Issue 19 item 2: the books check (`npm run cli -- ledger check`, the end-of-suite check, the hourly
 * job) compares each transaction's refunded amount, fee returned and dispute holds, and each refund
 * row, with the postings behind them (docs/money.md "The books check"). Each test knocks one column
 * out of line by hand and puts it back, however the test ends.
 */

let server: TestServer
let api: Client
let key: string

const V1 = "/public/v1"
const AMOUNT = 10_000
// CONTRACT-v1 §7: card fee 3.99 % rounded half up; the fee kept after refunding R is fee − round_half_up(fee · R / A).
const FEE = Math.floor((AMOUNT * 399 + 5_000) / 10_000)
const kept = (fee: number, refunded: number) => fee - Math.floor((2 * fee * refunded + AMOUNT) / (2 * AMOUNT))

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const paidCard = async () => {
  const created = await api.post(
    `${V1}/transactions`,
    {
      method: "credit_card",
      amount: AMOUNT,
      installments: 1,
      customer: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" },
      card: v1Card()
    },
    { token: key }
  )
  expect(created.status, created.text).toBe(201)
  return created.body.data.hash as string
}

/** A paid boleto refunded whole (a boleto's refund has no provider to wait for: RETURNED at once). */
const refundedBoleto = async () => {
  const { orderId } = await newOrder(api, key, AMOUNT)
  const created = await api.post(PROCESS, boletoBody(orderId, AMOUNT), { key })
  expect(created.status, created.text).toBe(201)
  const id = created.body.transactionId as string
  // A boleto's payment is confirmed by a job (202): the refund waits for it.
  const paid = await api.post(`/api/sandbox/transactions/${id}/pay`, undefined, { key })
  expect(paid.status, paid.text).toBe(202)
  await eventually(async () => {
    const { rows } = await server.db.query("select status from transactions where id = $1", [id])
    return rows[0]?.status === "PAID" ? true : undefined
  })
  const reply = await api.post(REFUND, { transactionId: id }, { key })
  expect(reply.status, reply.text).toBe(200)
  const { rows } = await server.db.query("select id from refunds where transaction_id = $1", [id])
  return { id, refundId: rows[0].id as string }
}

const refunded = async (amount: number, sale: () => Promise<string> = paidCard) => {
  const id = await sale()
  const reply = await api.post(`${V1}/transactions/${id}/refund`, { amount }, { token: key })
  expect(reply.status, reply.text).toBe(200)
  const { rows } = await server.db.query("select id from refunds where transaction_id = $1", [id])
  return { id, refundId: rows[0].id as string }
}

const check = () => checkLedger(server.databaseUrl)

const about = (found: ReadonlyArray<Discrepancy>, id: string) =>
  found.filter((d) => d.what.includes(id)).map(({ actual, expected, what }) => ({ what, expected, actual }))

/** Runs `corrupt`, then `inspect`, then `repair` whatever happened. */
const corrupted = async <T>(corrupt: string, repair: string, params: Array<unknown>, inspect: () => Promise<T>) => {
  await server.db.query(corrupt, params)
  try {
    return await inspect()
  } finally {
    await server.db.query(repair, params)
  }
}

interface Kind {
  readonly name: string
  /** A transaction in the state the corruption needs; the ids the statements take. */
  readonly setup: () => Promise<{ readonly id: string; readonly params: Array<unknown> }>
  readonly corrupt: string
  readonly repair: string
  /** What the check must say about transaction `id` once corrupted. */
  readonly expected: (id: string, params: Array<unknown>) => Array<Omit<Discrepancy, "accountId">>
}

const KINDS: ReadonlyArray<Kind> = [
  {
    name: "refunded_amount short of its succeeded refund (the refund of issue 19 that never reached it)",
    setup: async () => {
      const { id } = await refunded(3_000)
      return { id, params: [id] }
    },
    corrupt: "update transactions set refunded_amount = refunded_amount - 1000 where id = $1",
    repair: "update transactions set refunded_amount = refunded_amount + 1000 where id = $1",
    expected: (id) => [
      { what: `transaction ${id} refunded_amount vs its SUCCEEDED refunds`, expected: 3_000, actual: 2_000 },
      {
        what: `transaction ${id} refunded_amount + refund_reserved vs its refund postings`,
        expected: 2_000,
        actual: 3_000
      },
      { what: `transaction ${id} fee kept vs its fee postings`, expected: kept(FEE, 2_000), actual: kept(FEE, 3_000) }
    ]
  },
  {
    name: "refund_reserved with no refund in flight",
    setup: async () => {
      const { id } = await refunded(3_000)
      return { id, params: [id] }
    },
    corrupt: "update transactions set refund_reserved = 500 where id = $1",
    repair: "update transactions set refund_reserved = 0 where id = $1",
    expected: (id) => [
      { what: `transaction ${id} refund_reserved vs its PENDING refunds`, expected: 0, actual: 500 },
      {
        what: `transaction ${id} refunded_amount + refund_reserved vs its refund postings`,
        expected: 3_500,
        actual: 3_000
      },
      { what: `transaction ${id} fee kept vs its fee postings`, expected: kept(FEE, 3_500), actual: kept(FEE, 3_000) }
    ]
  },
  {
    name: "the fee, which fixes the fee returned in proportion",
    setup: async () => {
      const { id } = await refunded(3_000)
      return { id, params: [id] }
    },
    corrupt: "update transactions set fee = fee + 1000 where id = $1",
    repair: "update transactions set fee = fee - 1000 where id = $1",
    expected: (id) => [
      {
        what: `transaction ${id} fee kept vs its fee postings`,
        expected: kept(FEE + 1_000, 3_000),
        actual: kept(FEE, 3_000)
      }
    ]
  },
  {
    name: "a succeeded refund's row marked FAILED",
    setup: async () => {
      const { id, refundId } = await refunded(3_000)
      return { id, params: [refundId] }
    },
    corrupt: "update refunds set status = 'FAILED' where id = $1",
    repair: "update refunds set status = 'SUCCEEDED' where id = $1",
    expected: (id, [refundId]) => [
      { what: `transaction ${id} refunded_amount vs its SUCCEEDED refunds`, expected: 0, actual: 3_000 },
      { what: `refund ${String(refundId)} FAILED vs its refund postings`, expected: 0, actual: 3_000 }
    ]
  },
  {
    name: "a refund row's amount",
    setup: async () => {
      const { id, refundId } = await refunded(3_000)
      return { id, params: [refundId] }
    },
    corrupt: "update refunds set amount = amount + 1 where id = $1",
    repair: "update refunds set amount = amount - 1 where id = $1",
    expected: (id, [refundId]) => [
      { what: `transaction ${id} refunded_amount vs its SUCCEEDED refunds`, expected: 3_001, actual: 3_000 },
      { what: `refund ${String(refundId)} SUCCEEDED vs its refund postings`, expected: 3_001, actual: 3_000 }
    ]
  },
  {
    // A boleto's refund: card and PIX refunds whose outcome the provider has not said stay PENDING on purpose,
    // the operator queue's (card_refund_unknown, pix_refund_undecided), not an imbalance.
    name: "a refund left PENDING with its amount reserved, its answer never recorded (issue 19's state)",
    setup: async () => {
      const { id, refundId } = await refundedBoleto()
      return { id, params: [id, refundId] }
    },
    corrupt: `with r as (update refunds set status = 'PENDING', created_at = now() - interval '1 hour' where id = $2)
              update transactions set refunded_amount = 0, refund_reserved = ${AMOUNT} where id = $1`,
    repair: `with r as (update refunds set status = 'SUCCEEDED', created_at = now() where id = $2)
             update transactions set refunded_amount = ${AMOUNT}, refund_reserved = 0 where id = $1`,
    expected: (_id, [, refundId]) => [{ what: `refund ${String(refundId)} PENDING since`, expected: 0, actual: AMOUNT }]
  },
  {
    name: "a disputed transaction's status (the holds say the dispute is open)",
    setup: async () => {
      const id = await paidCard()
      const opened = await api.post(`/api/sandbox/transactions/${id}/chargeback`, { stage: "open" }, { key })
      expect(opened.status, opened.text).toBe(200)
      return { id, params: [id] }
    },
    corrupt: "update transactions set status = 'PAID' where id = $1",
    repair: "update transactions set status = 'PRE_CHARGEBACK' where id = $1",
    expected: (id) => [{ what: `transaction ${id} PAID dispute holds`, expected: 0, actual: AMOUNT }]
  }
]

/** What the check says about the kind's transaction and refund, `what` cut where the expected one ends. */
const found = (all: ReadonlyArray<Discrepancy>, id: string, params: Array<unknown>, kind: Kind) => {
  const wanted = kind.expected(id, params)
  const ids = new Set([id, ...params.map(String)])
  return all
    .filter((d) => [...ids].some((x) => d.what.includes(x)))
    .map(({ actual, expected, what }) => ({
      what: wanted.find((w) => what.startsWith(w.what))?.what ?? what,
      expected,
      actual
    }))
    .sort((x, y) => x.what.localeCompare(y.what))
}

describe("the books check compares each transaction's record with its postings (issue 19)", () => {
  for (const kind of KINDS) {
    it(`catches ${kind.name}`, async () => {
      const { id, params } = await kind.setup()
      expect(about(await check(), id)).toEqual([])
      const all = await corrupted(kind.corrupt, kind.repair, params, check)
      expect(found(all, id, params, kind)).toEqual(
        kind.expected(id, params).sort((x, y) => x.what.localeCompare(y.what))
      )
      expect(about(await check(), id)).toEqual([])
    })
  }

  it("a card refund PENDING for an operator (outcome unknown at the acquirer) is no discrepancy", async () => {
    const { id, refundId } = await refunded(3_000)
    await server.db.query(
      `with r as (update refunds set status = 'PENDING', created_at = now() - interval '1 hour' where id = $2)
       update transactions set refunded_amount = 0, refund_reserved = 3000 where id = $1`,
      [id, refundId]
    )
    try {
      expect(about(await check(), id)).toEqual([])
    } finally {
      await server.db.query(
        `with r as (update refunds set status = 'SUCCEEDED', created_at = now() where id = $2)
         update transactions set refunded_amount = 3000, refund_reserved = 0 where id = $1`,
        [id, refundId]
      )
    }
  })

  it("`npm run cli -- ledger check` exits 1 naming each of them", async () => {
    const cases = await Promise.all(KINDS.map(async (kind) => ({ kind, ...(await kind.setup()) })))
    for (const c of cases) await server.db.query(c.kind.corrupt, c.params)
    try {
      const result = await runCli(server, ["ledger", "check"])
      expect(result.code, result.stderr).toBe(1)
      for (const c of cases) for (const d of c.kind.expected(c.id, c.params)) expect(result.stderr).toContain(d.what)
    } finally {
      for (const c of cases) await server.db.query(c.kind.repair, c.params)
    }
    expect(await check()).toEqual([])
    // A cold start of the CLI (tsx): generous on a loaded 2-core machine.
  }, 180_000)
})
