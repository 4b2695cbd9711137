import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  chargeBoleto,
  chargePix,
  deliveryOf,
  eventRows,
  ISO_UTC,
  jobs,
  type Merchant,
  newMerchant,
  order,
  registerWebhook,
  sandboxExpire,
  sandboxPay,
  transaction,
  until
} from "./support/payments-fixtures.ts"
import { addBusinessDays } from "../src/domain/calendar.ts"
import { jsonBody, type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Time-driven jobs through the real graphile-worker (CONTRACT §7): a PIX not paid by `expiresAt`
 * and a boleto not paid by the end of its due date become FAILED with the order EXPIRED (one
 * expire job per transaction, scheduled when it is created); a boleto paid at the sandbox bank is
 * confirmed by the confirm_boletos job after BOLETO_CONFIRMATION_DELAY_SECONDS.
 */

const PIX_EXPIRES = 2
const CONFIRMATION_DELAY = 1
const BOLETO_DUE_DAYS = 3

let server: TestServer
let receiver: Receiver
let merchant: Merchant
beforeAll(async () => {
  ;[server, receiver] = await Promise.all([
    startTestServer({
      pixExpiresInSeconds: PIX_EXPIRES,
      boletoConfirmationDelaySeconds: CONFIRMATION_DELAY,
      boletoDueDays: BOLETO_DUE_DAYS,
      webhookAllowPrivateUrls: true,
      webhookRetrySchedule: [1, 2, 3],
      rateLimitPerMinute: 100_000
    }),
    startReceiver()
  ])
  merchant = await newMerchant(server.baseUrl)
  await registerWebhook(merchant, receiver.url)
})
afterAll(async () => {
  await receiver?.close()
  await server?.close()
})

const expireJob = async (transactionId: string) => (await jobs(server.db, "key = $1", [`expire:${transactionId}`]))[0]

const statusBecomes = (transactionId: string, status: string, timeoutMs: number) =>
  until(
    `${transactionId} ${status}`,
    async () => ((await transaction(merchant, transactionId)).status === status ? Date.now() : undefined),
    timeoutMs,
    100
  )

const delivered = (transactionId: string, event: string) =>
  until(
    `${event} of ${transactionId} delivered`,
    async () => {
      const row = await deliveryOf(server.db, transactionId, event)
      return row?.status === "SUCCESS" ? receiver.eventsFor(event, transactionId)[0] : undefined
    },
    10_000
  )

/** YYYY-MM-DD of an instant in São Paulo, computed here (not with the product's helper). */
const saoPauloDate = (instant: Date) =>
  new Intl.DateTimeFormat("en-CA", {
    timeZone: "America/Sao_Paulo",
    year: "numeric",
    month: "2-digit",
    day: "2-digit"
  }).format(instant)

const addDays = (date: string, days: number) => {
  const d = new Date(`${date}T12:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

describe("PIX expiry", () => {
  it(
    `an unpaid PIX becomes FAILED (order EXPIRED) after ${PIX_EXPIRES} s through its expire job, ` +
      `scheduled at creation; a paid one stays PAID`,
    async () => {
      const unpaid = await chargePix(merchant)
      const created = Date.now()
      const expiresAt = Date.parse(unpaid.body.pix.expiresAt)

      // Scheduled when the charge is created (not found later by a scan): one keyed job due at expiresAt.
      const job = await expireJob(unpaid.transactionId)
      expect(job, "expire job right after creation").toBeDefined()
      expect(job!.task_identifier).toBe("expire_transaction")
      expect(job!.run_at.getTime()).toBe(expiresAt)
      expect(job!.payload).toEqual({ accountId: merchant.accountId, transactionId: unpaid.transactionId })
      expect(expiresAt - created).toBeGreaterThan(PIX_EXPIRES * 1000 - 1500)
      expect(expiresAt - created).toBeLessThanOrEqual(PIX_EXPIRES * 1000 + 100)

      const paid = await chargePix(merchant)
      expect((await sandboxPay(merchant, paid.transactionId)).status).toBe(200)

      const failedAt = await statusBecomes(unpaid.transactionId, "FAILED", 8_000)
      console.log(`PIX expired ${failedAt - created} ms after creation (expiresAt + ${failedAt - expiresAt} ms)`)
      expect(failedAt - created).toBeLessThan(6_500)
      const {
        rows: [stored]
      } = await server.db.query<{ updated_at: Date }>("select updated_at from transactions where id = $1", [
        unpaid.transactionId
      ])
      expect(stored!.updated_at.getTime(), "not before the deadline").toBeGreaterThanOrEqual(expiresAt)
      expect((await order(merchant, unpaid.orderId)).status).toBe("EXPIRED")
      const failed = await delivered(unpaid.transactionId, "transaction.failed")
      expect(jsonBody(failed!)).toEqual({
        event: "transaction.failed",
        created_at: expect.stringMatching(ISO_UTC),
        data: {
          transactionId: unpaid.transactionId,
          orderId: unpaid.orderId,
          amount: unpaid.amount,
          method: "PIX",
          status: "FAILED"
        }
      })

      // The paid PIX's expire job runs too (and completes), changing nothing.
      await until(
        "the paid PIX's expire job done",
        async () => ((await expireJob(paid.transactionId)) === undefined ? true : undefined),
        8_000
      )
      expect(await expireJob(unpaid.transactionId)).toBeUndefined()
      expect((await transaction(merchant, paid.transactionId)).status).toBe("PAID")
      expect((await order(merchant, paid.orderId)).status).toBe("PAID")
      expect((await eventRows(server.db, paid.transactionId)).map((e) => e.type)).toEqual([
        "transaction.created",
        "transaction.paid"
      ])
      expect(receiver.eventsFor("transaction.failed", paid.transactionId)).toHaveLength(0)
    }
  )

  it(
    "the sandbox expire endpoint fails a PENDING PIX at once with " +
      "transaction.failed; the later expire job changes nothing",
    async () => {
      const pix = await chargePix(merchant)
      const reply = await sandboxExpire(merchant, pix.transactionId)
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body.status).toBe("FAILED")
      expect((await transaction(merchant, pix.transactionId)).status).toBe("FAILED")
      expect((await order(merchant, pix.orderId)).status).toBe("EXPIRED")
      const failed = await delivered(pix.transactionId, "transaction.failed")
      expect(jsonBody(failed!).data).toMatchObject({ status: "FAILED", method: "PIX" })
      expect((await sandboxExpire(merchant, pix.transactionId)).status).toBe(409)
      expect((await sandboxPay(merchant, pix.transactionId)).status).toBe(409)

      await until(
        "the expire job done",
        async () => ((await expireJob(pix.transactionId)) === undefined ? true : undefined),
        8_000
      )
      expect((await eventRows(server.db, pix.transactionId)).map((e) => e.type)).toEqual([
        "transaction.created",
        "transaction.failed"
      ])
      expect(receiver.eventsFor("transaction.failed", pix.transactionId)).toHaveLength(1)
    }
  )
})

describe("boletos", () => {
  it("a slip the job cannot move stays pending and holds back none of the others", async () => {
    const own = await newMerchant(server.baseUrl)
    const statusOf = async (transactionId: string) => (await transaction(own, transactionId)).status
    const slips = await Promise.all([1, 2, 3].map(() => chargeBoleto(own, 15_000)))
    const ids = slips.map((s) => s.transactionId).sort()
    // The one asked about first (pages go by id): its bank payment first, and its row made unreadable, as a
    // bug or a hand-edited row would leave it; the job's move of it dies.
    const [bad, ...good] = ids as [string, ...Array<string>]
    await server.db.query("insert into sandbox_boleto_payments (transaction_id, amount) values ($1, 15000)", [bad])
    await server.db.query(`update transactions set split = '{"not": "a list"}'::jsonb where id = $1`, [bad])
    for (const id of good) expect((await sandboxPay(own, id)).status).toBe(202)
    for (const id of good)
      await until(`${id} PAID`, async () => ((await statusOf(id)) === "PAID" ? true : undefined), 10_000)
    const stuck = await server.db.query<{ status: string }>("select status from transactions where id = $1", [bad])
    expect(stuck.rows[0]!.status).toBe("PENDING")
    // Repaired, it is asked again at the next poll and confirmed.
    await server.db.query("update transactions set split = '[]'::jsonb where id = $1", [bad])
    await until(`${bad} PAID`, async () => ((await statusOf(bad)) === "PAID" ? true : undefined), 10_000)
  })

  it(
    `a boleto paid at the sandbox bank (202, still PENDING) is confirmed PAID by the ` +
      `confirm_boletos job after ${CONFIRMATION_DELAY} s`,
    async () => {
      const boleto = await chargeBoleto(merchant, 15_000)
      const payStarted = Date.now()
      const reply = await sandboxPay(merchant, boleto.transactionId)
      expect(reply.status, reply.text).toBe(202)
      expect(reply.body.status).toBe("PENDING")
      const paidAt = await statusBecomes(boleto.transactionId, "PAID", 10_000)
      console.log(`boleto confirmed ${paidAt - payStarted} ms after the sandbox payment`)
      expect((await order(merchant, boleto.orderId)).status).toBe("PAID")
      const {
        rows: [row]
      } = await server.db.query<{ updated_at: Date; paid_at: Date }>(
        "select t.updated_at, p.paid_at from transactions t join sandbox_boleto_payments p " +
          "on p.transaction_id = t.id where t.id = $1",
        [boleto.transactionId]
      )
      // Not before the bank's settlement delay (both instants on the database's clock).
      expect(row!.updated_at.getTime() - row!.paid_at.getTime()).toBeGreaterThanOrEqual(CONFIRMATION_DELAY * 1000)

      const event = await delivered(boleto.transactionId, "transaction.paid")
      expect(jsonBody(event!)).toEqual({
        event: "transaction.paid",
        created_at: expect.stringMatching(ISO_UTC),
        data: {
          transactionId: boleto.transactionId,
          orderId: boleto.orderId,
          amount: 15_000,
          method: "BOLETO",
          status: "PAID",
          paidAt: expect.stringMatching(ISO_UTC)
        }
      })
      // paidAt is when the buyer paid at the bank, not when the job noticed.
      expect(Math.abs(Date.parse(jsonBody(event!).data.paidAt) - row!.paid_at.getTime())).toBeLessThan(5)
      expect(receiver.eventsFor("transaction.paid", boleto.transactionId)).toHaveLength(1)
    }
  )

  it(
    "an unpaid boleto is payable through its due date and expires BOLETO_REPORT_DAYS business days later " +
      "(end of day, São Paulo); when the job runs the boleto is FAILED and the order EXPIRED",
    async () => {
      const before = new Date()
      const boleto = await chargeBoleto(merchant)
      const dueDate: string = boleto.body.boleto.dueDate
      expect([
        addBusinessDays(saoPauloDate(before), BOLETO_DUE_DAYS),
        addBusinessDays(saoPauloDate(new Date()), BOLETO_DUE_DAYS)
      ]).toContain(dueDate)
      const job = await expireJob(boleto.transactionId)
      expect(job, "expire job right after creation").toBeDefined()
      // Payable through its due date (its expiresAt; São Paulo is UTC-3, no daylight saving since 2019: the
      // day ends at 03:00Z of the next)...
      const endOf = (day: string) => new Date(Date.parse(`${addDays(day, 1)}T03:00:00.000Z`) - 1).toISOString()
      const stored = await server.db.query("select expires_at from transactions where id = $1", [boleto.transactionId])
      expect(stored.rows[0].expires_at.toISOString()).toBe(endOf(dueDate))
      // ...expired two business days later (the test server's BOLETO_REPORT_DAYS, the default): the bank's
      // retorno of a payment made on the due date comes the next business day, or the one after, and must
      // still find it PENDING (docs/boleto.md "When a boleto expires").
      expect(job!.run_at.toISOString()).toBe(endOf(addBusinessDays(dueDate, 2)))
      // Meanwhile the bank takes no payment dated after the due date.
      const late = await merchant.api.post(
        `/api/sandbox/transactions/${boleto.transactionId}/pay?date=${addDays(dueDate, 1)}`,
        undefined,
        { key: merchant.key }
      )
      expect(late.status, late.text).toBe(409)
      expect(late.body.code).toBe("not_payable")

      // Bring the deadline to now.
      const moved = await server.db.query("update graphile_worker._private_jobs set run_at = now() where key = $1", [
        `expire:${boleto.transactionId}`
      ])
      expect(moved.rowCount).toBe(1)
      await statusBecomes(boleto.transactionId, "FAILED", 8_000)
      expect((await order(merchant, boleto.orderId)).status).toBe("EXPIRED")
      const failed = await delivered(boleto.transactionId, "transaction.failed")
      expect(jsonBody(failed!).data).toMatchObject({
        transactionId: boleto.transactionId,
        method: "BOLETO",
        status: "FAILED"
      })
      // A payment arriving after expiry is refused.
      expect((await sandboxPay(merchant, boleto.transactionId)).status).toBe(409)
    }
  )

  it("a paid boleto is confirmed even while 500 older boletos (of another merchant) await payment", async () => {
    const other = await newMerchant(server.baseUrl, "Loja Boletos em Aberto")
    const template = await chargeBoleto(other)
    // 500 older unpaid slips, cloned from a real one (a busy merchant: most boletos are never paid).
    await server.db.query(
      `insert into transactions
       select (jsonb_populate_record(null::transactions,
                 to_jsonb(t) || jsonb_build_object('id', gen_random_uuid(), 'created_at', now() - interval '1 hour'))).*
       from transactions t, generate_series(1, 500) where t.id = $1`,
      [template.transactionId]
    )
    try {
      const boleto = await chargeBoleto(merchant, 9_900)
      expect((await sandboxPay(merchant, boleto.transactionId)).status).toBe(202)
      await statusBecomes(boleto.transactionId, "PAID", 10_000)
      expect((await order(merchant, boleto.orderId)).status).toBe("PAID")
    } finally {
      await server.db.query("update transactions set status = 'FAILED' where account_id = $1 and status = 'PENDING'", [
        other.accountId
      ])
    }
  })
})
