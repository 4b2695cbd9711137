import { randomUUID } from "node:crypto"
import type pg from "pg"
import { expect } from "vitest"
import type { Client, Reply } from "./http.ts"
import { until } from "./payments-fixtures.ts"
import { cardBody, newOrder, PROCESS } from "./payments.ts"

/**
 * Concurrent card charges through a fault (issue 19: a SIGKILLed PostgreSQL, a SIGKILLed service), each
 * retried with its Idempotency-Key until its one outcome, then counted in the database.
 */
export const AMOUNT = 10_000
/** FEE_CREDIT_CARD of CHARGE_ENV: 2 % of 10,000 centavos. */
export const FEE = 200
export const CHARGES = 20
export const CHARGE_ENV = { RATE_LIMIT_PER_MINUTE: "100000", ANTIFRAUD: "sandbox", FEE_CREDIT_CARD: "2%" }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A reply that is the request's one outcome: a 201 or a refusal, not an outage (5xx) or a claim in use (409). */
const final = (reply: Reply) =>
  reply.status === 201 || (reply.status >= 400 && reply.status < 500 && reply.status !== 409)
const failed = (e: Error): Reply => ({
  status: 0,
  body: { message: e.message },
  headers: new Headers(),
  text: e.message
})

/**
 * Sends CHARGES card charges at once, each with its own order and Idempotency-Key, runs `fault` once
 * they are under way (it returns the service to retry on), then retries each key until its outcome.
 * Returns the outcomes and when each came, in ms after `fault` returned.
 */
export const chargesThrough = async (api: Client, key: string, fault: () => Promise<Client>) => {
  const orders = await Promise.all(Array.from({ length: CHARGES }, () => newOrder(api, key, AMOUNT)))
  const keys = orders.map(() => randomUUID())
  // One body per order: a retry must send the same request (cardBody draws a fresh CPF each call).
  const bodies = orders.map((o) => cardBody(o.orderId, AMOUNT))
  let via = api
  const charge = (i: number) =>
    via.post(PROCESS, bodies[i], { key, headers: { "idempotency-key": keys[i]! } }).catch(failed)
  let answered = 0
  const first = orders.map((_, i) => charge(i).finally(() => answered++))
  // In the middle: some charges answered, the others still running.
  await until("a first charge answered", async () => (answered > 0 ? true : undefined), 30_000, 5)
  const answeredBefore = answered
  via = await fault()
  const faultAt = Date.now()
  const outcomes = await Promise.all(
    first.map(async (attempt, i) => {
      let reply = await attempt
      // status@ms of each attempt, for the report.
      const seen: Array<string> = [`${reply.status}@${Date.now() - faultAt}`]
      while (!final(reply) && Date.now() - faultAt < 30_000) {
        await sleep(100)
        reply = await charge(i)
        seen.push(`${reply.status}@${Date.now() - faultAt}`)
      }
      return { reply, afterMs: Date.now() - faultAt, orderId: orders[i]!.orderId, trail: seen.join(" ") }
    })
  )
  const slowest = outcomes.reduce((a, b) => (b.afterMs > a.afterMs ? b : a))
  return { outcomes, answeredBefore, slowest }
}

/** Every order charged exactly once, as its reply says; its postings and the merchant's balance to the centavo. */
export const expectChargedOnce = async (
  db: pg.Client,
  accountId: string,
  outcomes: ReadonlyArray<{ reply: Reply; orderId: string }>
) => {
  for (const { reply, orderId } of outcomes) {
    expect(reply.status, reply.text).toBe(201)
    const rows = await db.query("select id, status from transactions where order_id = $1", [orderId])
    expect(rows.rows.map((r) => r.id)).toEqual([reply.body.transactionId])
  }
  // Each sale: the payer's side, the merchant's pending net and the fee, once per transaction.
  const postings = await db.query<{ transaction_id: string; n: number; pending: number }>(
    `select transaction_id, count(*)::int as n,
            coalesce(sum(amount) filter (where party = 'merchant' and book = 'pending'), 0)::int as pending
     from ledger_postings where account_id = $1 group by transaction_id`,
    [accountId]
  )
  expect(postings.rows).toHaveLength(outcomes.length)
  const shapes = new Set(postings.rows.map((r) => r.n))
  expect(shapes.size).toBe(1)
  for (const row of postings.rows) expect(row.pending).toBe(AMOUNT - FEE)
  const balance = await db.query(
    "select amount from ledger_balances where account_id = $1 and party = 'merchant' and book = 'pending'",
    [accountId]
  )
  expect(Number(balance.rows[0].amount)).toBe(outcomes.length * (AMOUNT - FEE))
}
