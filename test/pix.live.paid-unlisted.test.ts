import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FakePsp } from "./fakes/pix/server.ts"
import { chargePix, type Merchant, transaction, until } from "./support/payments-fixtures.ts"
import { checkLedger } from "./support/ledger-check.ts"
import { type LivePix, startLivePix } from "./support/livePix.ts"

/**
 * A PIX charge whose expiry finds it paid at the PSP (the withdrawal refused: CONCLUIDA) while the PSP lists
 * no payment under it (`CobCompleta.pix` is optional in the API Pix) and its notice was lost: the expiry does
 * not make it FAILED — the buyer paid — but waits, and the payment, once listed, settles it (src/app/
 * Settlement.ts `withdrawPix`).
 */
let live: LivePix
let psp: FakePsp
let merchant: Merchant
let db: pg.Pool
let databaseUrl: string

beforeAll(async () => {
  live = await startLivePix("Loja Lista Atrasada")
  ;({ psp, merchant, db, databaseUrl } = live)
}, 150_000)

afterAll(() => live?.stop())

describe("a PIX charge paid at the PSP that lists no payment under it", () => {
  it("is not expired FAILED by its expiry job; the payment, once listed, settles it", async () => {
    const c = await chargePix(merchant, 4_321)
    const txid = c.transactionId.replace(/-/g, "")
    // Paid: its notice lost, out of GET /pix for now, and not listed under its charge.
    const e2e = await psp.pay(txid, { notify: false, listed: false, inCob: false })
    await db.query("select graphile_worker.add_job('expire_transaction', $1::json)", [
      JSON.stringify({ accountId: merchant.accountId, transactionId: c.transactionId })
    ])
    // The expiry job asks the PSP (PATCH refused: CONCLUIDA, read back by GET /cob) and fails, to be retried.
    await until(
      "the expiry job tried",
      async () => {
        const { rows } = await db.query<{ n: number }>(
          `select count(*)::int as n from graphile_worker.jobs
           where task_identifier = 'expire_transaction' and attempts > 0`
        )
        return rows[0]!.n > 0 ? true : undefined
      },
      30_000,
      200
    )
    expect((await transaction(merchant, c.transactionId)).status).toBe("PENDING")
    // The PSP lists it now: the payment's notice (here its retry) settles the sale.
    await psp.renotify(e2e)
    await until(
      "the charge settled",
      async () => ((await transaction(merchant, c.transactionId)).status === "PAID" ? true : undefined),
      30_000,
      300
    )
    expect(await checkLedger(databaseUrl)).toEqual([])
  }, 120_000)
})
