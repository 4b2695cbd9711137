/**
 * A PIX refund the PSP has not decided (EM_PROCESSAMENTO, or the PSP unreachable) stays PENDING with its
 * money reserved on purpose (docs/providers.md "Refunds": "A PSP that does not answer is not a refusal … concluded
 * by the PSP's notice or by reconcile_pix"). Such a refund is no imbalance of the books; the books check
 * (ledger check CLI, the hourly job and its ledger_imbalance_centavos alert) does not report it; past five
 * minutes the operator queue counts it (`operator_queue{kind="pix_refund_undecided"}`, docs/operations.md).
 */
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FakePsp } from "./fakes/pix/server.ts"
import { chargePix, type Merchant, transaction, until } from "./support/payments-fixtures.ts"
import type { RoleProcess } from "./support/processes.ts"
import { checkLedger } from "./support/ledger-check.ts"
import { type LivePix, startLivePix } from "./support/livePix.ts"

let live: LivePix
let psp: FakePsp
let merchant: Merchant
let db: pg.Pool
let databaseUrl: string
let gateway: RoleProcess

beforeAll(async () => {
  live = await startLivePix("Loja Devolucao Lenta")
  ;({ psp, merchant, db, databaseUrl, gateway } = live)
}, 150_000)

afterAll(() => live?.stop())

describe("a PIX refund the PSP has not decided yet", () => {
  it("is not reported as a books discrepancy while it waits for the PSP's word", async () => {
    const c = await chargePix(merchant, 10_000)
    await psp.pay(c.transactionId.replace(/-/g, ""))
    await until("PAID", async () =>
      (await transaction(merchant, c.transactionId)).status === "PAID" ? true : undefined
    )
    const reply = await merchant.api.post(
      "/api/payment-gateway/refund",
      { transactionId: c.transactionId, amount: 4_000 },
      { key: merchant.key }
    )
    // Accepted, EM_PROCESSAMENTO past the wait: 200, PENDING, the money reserved (docs/providers.md "Refunds").
    expect(reply.status, reply.text).toBe(200)
    const rows = await db.query<{ id: string; status: string }>(
      "select id, status from refunds where transaction_id = $1",
      [c.transactionId]
    )
    expect(rows.rows.map((r) => r.status)).toEqual(["PENDING"])
    expect(await checkLedger(databaseUrl)).toEqual([])
    // The PSP has still not decided six minutes later (the SPI slow, or the PSP down: reconcile_pix keeps asking).
    // Time passing is simulated by moving the refund's creation back; nothing else is touched.
    await db.query("update refunds set created_at = created_at - interval '6 minutes' where id = $1", [
      rows.rows[0]!.id
    ])
    // The books are exactly as before: the refund's money taken and reserved, its postings written.
    expect(await checkLedger(databaseUrl)).toEqual([])
    // And an operator sees it waiting.
    const metrics = await (await fetch(gateway!.metricsUrl)).text()
    expect(Number(/^operator_queue\{kind="pix_refund_undecided"\} (\d+)/m.exec(metrics)?.[1])).toBe(1)
  }, 90_000)
})
