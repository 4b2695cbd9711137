import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  CARDS,
  chargeCard,
  chargePix,
  deliveryRows,
  eventRows,
  jobs,
  type Merchant,
  newMerchant,
  order,
  refund,
  registerWebhook,
  sandboxExpire,
  sandboxPay,
  sleep,
  transaction,
  until
} from "./support/payments-fixtures.ts"
import { jsonBody, type Receiver, startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The transactional outbox (CONTRACT §8): an event, its delivery record and its graphile-worker job
 * are written in the same database transaction as the state change. A rolled-back change sends
 * nothing; a committed one always sends, exactly once per event.
 */

let server: TestServer
let receiver: Receiver
let merchant: Merchant
beforeAll(async () => {
  ;[server, receiver] = await Promise.all([
    startTestServer({ webhookAllowPrivateUrls: true, webhookRetrySchedule: [1, 2, 3], rateLimitPerMinute: 100_000 }),
    startReceiver()
  ])
  merchant = await newMerchant(server.baseUrl)
  await registerWebhook(merchant, receiver.url)
})
afterAll(async () => {
  await receiver?.close()
  await server?.close()
})

/** The newest graphile-worker job id so far (jobs added later have larger ids). */
const lastJobId = async () =>
  Number(
    (await server.db.query<{ id: string | null }>("select max(id)::text as id from graphile_worker._private_jobs"))
      .rows[0]?.id ?? 0
  )
const deliverJobsAfter = (id: number) => jobs(server.db, "task_identifier = 'deliver_webhook' and id > $1", [id])

const snapshot = async (transactionId: string) => ({
  events: (await eventRows(server.db, transactionId)).map((e) => e.id),
  deliveries: (await deliveryRows(server.db, transactionId)).map((d) => d.id),
  requests: receiver.requests.filter((r) => jsonBody(r)?.data?.transactionId === transactionId).length
})

/** Waits for every delivery of the transaction to reach SUCCESS. */
const allDelivered = (transactionId: string, count: number) =>
  until(
    `${count} deliveries of ${transactionId} SUCCESS`,
    async () => {
      const rows = await deliveryRows(server.db, transactionId)
      return rows.length === count && rows.every((d) => d.status === "SUCCESS") ? rows : undefined
    },
    15_000
  )

describe("a rolled-back state change sends nothing", () => {
  it(
    "a sandbox pay whose transaction fails at COMMIT leaves no event, no delivery, " +
      "no job; paying again sends exactly one",
    async () => {
      const pix = await chargePix(merchant)
      await allDelivered(pix.transactionId, 1)
      // Fault injection at COMMIT: a deferred constraint trigger on `events` that fails for this
      // transaction. The outbox statement itself succeeds (event, delivery row, add_job), then the
      // whole database transaction, state change included, rolls back.
      await server.db.query(`
      create table if not exists test_poisoned (transaction_id uuid primary key);
      create or replace function test_fail_at_commit() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from test_poisoned p where p.transaction_id = new.transaction_id) then
          raise exception 'injected failure at commit';
        end if;
        return null;
      end $$;
      drop trigger if exists test_fail_at_commit on events;
      create constraint trigger test_fail_at_commit after insert on events
        deferrable initially deferred for each row execute function test_fail_at_commit();`)
      try {
        await server.db.query("insert into test_poisoned values ($1)", [pix.transactionId])
        const before = await snapshot(pix.transactionId)
        const jobMark = await lastJobId()

        const failed = await sandboxPay(merchant, pix.transactionId)
        expect(failed.status, failed.text).toBe(500)
        expect(failed.text).not.toMatch(/injected|trigger|sql/i)

        expect((await transaction(merchant, pix.transactionId)).status).toBe("PENDING")
        expect((await order(merchant, pix.orderId)).status).toBe("PENDING")
        await sleep(2_500) // a leaked job would have been picked up by now
        expect(await snapshot(pix.transactionId)).toEqual(before)
        expect(await deliverJobsAfter(jobMark)).toEqual([])
        expect(receiver.eventsFor("transaction.paid", pix.transactionId)).toHaveLength(0)
      } finally {
        await server.db.query("delete from test_poisoned where transaction_id = $1", [pix.transactionId])
      }

      const paid = await sandboxPay(merchant, pix.transactionId)
      expect(paid.status, paid.text).toBe(200)
      await allDelivered(pix.transactionId, 2)
      expect((await eventRows(server.db, pix.transactionId)).map((e) => e.type)).toEqual([
        "transaction.created",
        "transaction.paid"
      ])
      await sleep(500)
      expect(receiver.eventsFor("transaction.paid", pix.transactionId)).toHaveLength(1)
    }
  )

  it(
    "a refused move (409: paying or expiring a PAID PIX, refunding a PENDING " +
      "one) writes no event, no delivery, no job",
    async () => {
      const paidPix = await chargePix(merchant)
      expect((await sandboxPay(merchant, paidPix.transactionId)).status).toBe(200)
      const pendingPix = await chargePix(merchant)
      await allDelivered(paidPix.transactionId, 2)
      await allDelivered(pendingPix.transactionId, 1)

      const before = [await snapshot(paidPix.transactionId), await snapshot(pendingPix.transactionId)]
      const jobMark = await lastJobId()
      const again = await sandboxPay(merchant, paidPix.transactionId)
      expect(again.status, again.text).toBe(409)
      const expire = await sandboxExpire(merchant, paidPix.transactionId)
      expect(expire.status, expire.text).toBe(409)
      const early = await merchant.api.post(
        "/api/payment-gateway/refund",
        { transactionId: pendingPix.transactionId },
        { key: merchant.key }
      )
      expect(early.status, early.text).toBe(409)

      await sleep(2_500)
      expect([await snapshot(paidPix.transactionId), await snapshot(pendingPix.transactionId)]).toEqual(before)
      expect(await deliverJobsAfter(jobMark)).toEqual([])
      expect((await transaction(merchant, paidPix.transactionId)).status).toBe("PAID")
      expect((await transaction(merchant, pendingPix.transactionId)).status).toBe("PENDING")
    }
  )
})

describe("the sandbox dispute card's chargeback job commits with the capture", () => {
  const disputeJobs = (transactionId: string) =>
    jobs(server.db, "task_identifier = 'sandbox_dispute' and key = $1", [`dispute:${transactionId}`])

  it("a capture that fails at COMMIT leaves no dispute job; a committed one has it", async () => {
    // Fault injection at COMMIT (as above): a deferred constraint trigger failing the capture of a charge
    // of this amount, after the capture's statements (its deferred writes included) have run. The job once
    // went in on its own before the capture's transaction and stayed; reconcile_charges then captured the
    // charge without it (Payments.authorize).
    const amount = 4_271
    await server.db.query(`
      create or replace function test_fail_capture() returns trigger language plpgsql as $$
      begin
        if old.status = 'PROCESSING' and new.status = 'CAPTURED' and new.amount = ${amount} then
          raise exception 'injected failure at commit';
        end if;
        return null;
      end $$;
      drop trigger if exists test_fail_capture on transactions;
      create constraint trigger test_fail_capture after update on transactions
        deferrable initially deferred for each row execute function test_fail_capture();`)
    try {
      await expect(chargeCard(merchant, CARDS.chargeback, amount)).rejects.toThrow(/^CARD: 500/)
    } finally {
      await server.db.query("drop trigger if exists test_fail_capture on transactions")
    }
    const { rows } = await server.db.query<{ id: string; status: string }>(
      "select id, status from transactions where account_id = $1 and amount = $2",
      [merchant.accountId, amount]
    )
    expect(rows.map((r) => r.status)).toEqual(["PROCESSING"])
    expect(await disputeJobs(rows[0]!.id)).toEqual([])

    // Committed: the capture and its dispute job (due after DISPUTE_DELAY_SECONDS, 10 s in the tests).
    const captured = await chargeCard(merchant, CARDS.chargeback, 3_000)
    expect(captured.status).toBe(201)
    expect((await transaction(merchant, captured.transactionId)).status).toBe("CAPTURED")
    expect(await disputeJobs(captured.transactionId)).toHaveLength(1)
  })
})

describe("a committed state change always sends", () => {
  it(
    "created, paid, partially_refunded, refunded, declined and failed: one " +
      "event row and one delivered delivery each",
    async () => {
      const pix = await chargePix(merchant, 10_000)
      expect((await sandboxPay(merchant, pix.transactionId)).status).toBe(200)
      await refund(merchant, pix.transactionId, 3_000)
      await refund(merchant, pix.transactionId, 7_000)
      const expired = await chargePix(merchant, 2_000)
      expect((await sandboxExpire(merchant, expired.transactionId)).status).toBe(200)
      const approved = await chargeCard(merchant, CARDS.approved, 3_000)
      const declined = await chargeCard(merchant, CARDS.declined, 4_000)
      const failed = await chargeCard(merchant, CARDS.processingError, 5_000)
      expect([approved.status, declined.status, failed.status]).toEqual([201, 422, 422])

      const expected: ReadonlyArray<[string, ReadonlyArray<[string, string]>]> = [
        [
          pix.transactionId,
          [
            ["transaction.created", "PENDING"],
            ["transaction.paid", "PAID"],
            ["transaction.partially_refunded", "PARTIAL_REFUND"],
            ["transaction.refunded", "REFUNDED"]
          ]
        ],
        [
          expired.transactionId,
          [
            ["transaction.created", "PENDING"],
            ["transaction.failed", "FAILED"]
          ]
        ],
        [
          approved.transactionId,
          [
            ["transaction.created", "PROCESSING"],
            ["transaction.paid", "CAPTURED"]
          ]
        ],
        [
          declined.transactionId,
          [
            ["transaction.created", "PROCESSING"],
            ["transaction.declined", "DECLINED"]
          ]
        ],
        [
          failed.transactionId,
          [
            ["transaction.created", "PROCESSING"],
            ["transaction.failed", "FAILED"]
          ]
        ]
      ]
      for (const [transactionId, events] of expected) {
        const rows = await allDelivered(transactionId, events.length)
        const stored = await eventRows(server.db, transactionId)
        expect([...stored.map((e) => e.type)].sort(), transactionId).toEqual(events.map(([type]) => type).sort())
        // One delivery per event, each pointing at its own event row.
        expect(new Set(rows.map((d) => d.event_id)).size).toBe(events.length)
        expect([...rows.map((d) => d.event_id)].sort()).toEqual([...stored.map((e) => e.id)].sort())
        for (const [type, status] of events) {
          const event = stored.find((e) => e.type === type)!
          expect(event.payload.data.status, `${type} of ${transactionId}`).toBe(status)
        }
      }
      await sleep(1_000) // room for a duplicate
      for (const [transactionId, events] of expected) {
        const rows = await deliveryRows(server.db, transactionId)
        for (const [type] of events) {
          const got = receiver.eventsFor(type, transactionId)
          expect(got, `${type} of ${transactionId}`).toHaveLength(1)
          const row = rows.find((d) => d.event === type)!
          expect(got[0]!.headers["webhook-id"]).toBe(row.id)
          expect(row.attempts).toBe(1)
          const stored = (await eventRows(server.db, transactionId)).find((e) => e.type === type)!
          expect(jsonBody(got[0]!)).toEqual(stored.payload)
        }
      }
      const partial = receiver.eventsFor("transaction.partially_refunded", pix.transactionId)[0]!
      expect(jsonBody(partial).data).toMatchObject({
        status: "PARTIAL_REFUND",
        refundedAmount: 3_000,
        amount: 10_000,
        method: "PIX"
      })
      const full = receiver.eventsFor("transaction.refunded", pix.transactionId)[0]!
      expect(jsonBody(full).data).toMatchObject({ status: "REFUNDED", refundedAmount: 10_000 })
      expect(jsonBody(receiver.eventsFor("transaction.declined", declined.transactionId)[0]!).data.method).toBe(
        "CREDIT_CARD"
      )
    }
  )

  it("an account without a webhook gets its events recorded but no delivery and no job", async () => {
    const quiet = await newMerchant(server.baseUrl)
    const jobMark = await lastJobId()
    const pix = await chargePix(quiet)
    expect((await sandboxPay(quiet, pix.transactionId)).status).toBe(200)
    expect((await eventRows(server.db, pix.transactionId)).map((e) => e.type)).toEqual([
      "transaction.created",
      "transaction.paid"
    ])
    expect(await deliveryRows(server.db, pix.transactionId)).toEqual([])
    expect(await deliverJobsAfter(jobMark)).toEqual([])
    const listed = await quiet.api.get("/api/webhooks/deliveries", { key: quiet.key })
    expect(listed.body).toEqual({ deliveries: [] })
  })
})
