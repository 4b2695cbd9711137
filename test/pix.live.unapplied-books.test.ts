/**
 * A PIX the gateway receives for a charge of ours and does not apply — a second payer of a charge already PAID
 * (`not_payable`), or a payment of the wrong amount (`amount_mismatch`, the charge then expiring and its order
 * EXPIRED) — is the payer's money the PSP credited to the gateway, owed back. It is posted on the gateway's books
 * only, under its transaction and tenant, as a boleto payment not applied is (docs/boleto.md "Payments the gateway
 * does not apply"): `pix_payment_to_return` (payers −amount, payouts +amount) with its outcome, in the same
 * database transaction, and `pix_payment_returned` (the reverse) once an operator marks it handled
 * (`npm run cli -- pix handled`), once however often it is run; a mark undone (`pix reopen`) owes it again
 * (docs/providers.md "The receiver", docs/ledger.md). Every centavo received from payers is in the `payers` book
 * of the transaction's tenant, the merchant's balances untouched, the books check clean. The gateway as a process
 * in live mode against the fake PSP (test/fakes/pix).
 */
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FakePsp } from "./fakes/pix/server.ts"
import { checkLedger } from "./support/ledger-check.ts"
import { chargePix, type Merchant, order, transaction, until } from "./support/payments-fixtures.ts"
import { type LivePix, startLivePix } from "./support/livePix.ts"
import { runCli } from "./support/processes.ts"

let live: LivePix
let psp: FakePsp
let merchant: Merchant
let db: pg.Pool
let databaseUrl: string

beforeAll(async () => {
  live = await startLivePix("Loja Pagamento Tardio", { FEE_PIX: "0.99%" })
  ;({ psp, merchant, db, databaseUrl } = live)
}, 150_000)

afterAll(() => live?.stop())

const txidOf = (transactionId: string) => transactionId.replace(/-/g, "")

const outcomes = async (transactionId: string) =>
  (
    await db.query<{ end_to_end_id: string; outcome: string }>(
      "select end_to_end_id, outcome from pix_received where transaction_id = $1 order by received_at",
      [transactionId]
    )
  ).rows

/** What the gateway's books say it received from payers for this transaction (payers postings, negated). */
const receivedFromPayers = async (transactionId: string) =>
  0 -
  Number(
    (
      await db.query<{ total: string | null }>(
        `select sum(amount) as total from ledger_postings
         where account_id = $1 and transaction_id = $2 and party = 'system' and book = 'payers'`,
        [merchant.accountId, transactionId]
      )
    ).rows[0]!.total ?? 0
  )

/** The merchant's money in the books: available, pending and reserved of every non-system party. */
const merchantBalance = async () =>
  Number(
    (
      await db.query<{ total: string | null }>(
        "select sum(amount) as total from ledger_balances where account_id = $1 and party <> 'system'",
        [merchant.accountId]
      )
    ).rows[0]!.total ?? 0
  )

/** The gateway's postings of payments of this transaction it did not apply, in the order written. */
const unapplied = async (transactionId: string) =>
  (
    await db.query<{ type: string; book: string; amount: string }>(
      `select type, book, amount from ledger_postings
       where account_id = $1 and transaction_id = $2 and type like 'pix\\_payment\\_%'
       order by id`,
      [merchant.accountId, transactionId]
    )
  ).rows.map((r) => ({ ...r, amount: Number(r.amount) }))

/** The keys of those entries, in byte order. */
const entryKeys = async (transactionId: string) =>
  (
    await db.query<{ key: string }>(
      `select key from ledger_entries where account_id = $1 and transaction_id = $2 and key like 'pix\\_payment\\_%'
       order by key collate "C"`,
      [merchant.accountId, transactionId]
    )
  ).rows.map((r) => r.key)

describe("a PIX received and not applied to its charge is on the gateway's books", () => {
  it("a second payer of a PAID charge (not_payable): both payments are received from payers in the books", async () => {
    const sale = 5_000
    const c = await chargePix(merchant, sale)
    const txid = txidOf(c.transactionId)
    const first = await psp.pay(txid)
    await until(
      "the charge PAID",
      async () => ((await transaction(merchant, c.transactionId)).status === "PAID" ? true : undefined),
      30_000,
      200
    )
    expect((await order(merchant, c.orderId)).status).toBe("PAID")
    const balanceAfterSale = await merchantBalance()
    // Another payer read the same QR code: the PSP credits the gateway 50,00 more.
    const second = await psp.pay(txid, { again: true })
    await until(
      "the second payment recorded",
      async () => ((await outcomes(c.transactionId)).length === 2 ? true : undefined),
      30_000,
      200
    )
    expect(await outcomes(c.transactionId)).toEqual([
      { end_to_end_id: first, outcome: "settled" },
      { end_to_end_id: second, outcome: "not_payable" }
    ])
    // The merchant is credited once (right) ...
    expect(await merchantBalance()).toBe(balanceAfterSale)
    // ... and the gateway's books show both 50,00 received from payers, one owed back.
    expect(await receivedFromPayers(c.transactionId)).toBe(sale + sale)
    expect(await checkLedger(databaseUrl)).toEqual([])
  }, 120_000)

  it("an underpaid PIX (amount_mismatch) of an order that expires: the payer's money is in the books", async () => {
    const sale = 5_000
    const underpaid = 4_000
    const c = await chargePix(merchant, sale)
    const txid = txidOf(c.transactionId)
    await psp.pay(txid, { amount: underpaid })
    await until(
      "the payment recorded",
      async () => ((await outcomes(c.transactionId)).length === 1 ? true : undefined),
      30_000,
      200
    )
    expect((await outcomes(c.transactionId))[0]!.outcome).toBe("amount_mismatch")
    // The charge's deadline passes (the expiry job, brought forward): FAILED, the order EXPIRED.
    await db.query(
      `select graphile_worker.add_job('expire_transaction',
         json_build_object('accountId', $1::text, 'transactionId', $2::text), job_key := 'expire:' || $2::text)`,
      [merchant.accountId, c.transactionId]
    )
    await until(
      "the order EXPIRED",
      async () => ((await order(merchant, c.orderId)).status === "EXPIRED" ? true : undefined),
      30_000,
      250
    )
    expect((await transaction(merchant, c.transactionId)).status).toBe("FAILED")
    // Whatever the charge's end, 40,00 of a payer's money reached the gateway: the books must say so.
    expect(await receivedFromPayers(c.transactionId)).toBe(underpaid)
    expect(await checkLedger(databaseUrl)).toEqual([])
  }, 120_000)

  it("closing it as handled posts its return once, however often it is run; reopened, it is owed again", async () => {
    const sale = 7_300
    const c = await chargePix(merchant, sale)
    const txid = txidOf(c.transactionId)
    await psp.pay(txid)
    await until(
      "the charge PAID",
      async () => ((await transaction(merchant, c.transactionId)).status === "PAID" ? true : undefined),
      30_000,
      200
    )
    const balanceAfterSale = await merchantBalance()
    const second = await psp.pay(txid, { again: true })
    await until(
      "the second payment recorded",
      async () => ((await outcomes(c.transactionId)).length === 2 ? true : undefined),
      30_000,
      200
    )
    expect((await outcomes(c.transactionId))[1]).toEqual({ end_to_end_id: second, outcome: "not_payable" })
    expect(await unapplied(c.transactionId)).toEqual([
      { type: "pix_payment_to_return", book: "payers", amount: -sale },
      { type: "pix_payment_to_return", book: "payouts", amount: sale }
    ])
    expect(await receivedFromPayers(c.transactionId)).toBe(sale + sale)
    expect(await merchantBalance()).toBe(balanceAfterSale)

    // The operator returned it at the PSP and closes it: its return posted, once.
    const env = { DATABASE_URL: databaseUrl }
    const marked = await runCli<{ endToEndId: string; outcome: string; handledNote: string }>(
      ["pix", "handled", "--id", second, "--note", "returned at the PSP, devolução D7"],
      env,
      60_000
    )
    expect(marked).toMatchObject({ endToEndId: second, outcome: "not_payable" })
    // Run again: refused (marked already), nothing posted twice.
    await expect(runCli(["pix", "handled", "--id", second, "--note", "again"], env, 60_000)).rejects.toThrow(
      /already marked handled/
    )
    expect(await unapplied(c.transactionId)).toEqual([
      { type: "pix_payment_to_return", book: "payers", amount: -sale },
      { type: "pix_payment_to_return", book: "payouts", amount: sale },
      { type: "pix_payment_returned", book: "payers", amount: sale },
      { type: "pix_payment_returned", book: "payouts", amount: -sale }
    ])
    // Given back: what the payers' book holds of this transaction is the sale alone, to the centavo.
    expect(await receivedFromPayers(c.transactionId)).toBe(sale)
    expect(await merchantBalance()).toBe(balanceAfterSale)
    expect(await checkLedger(databaseUrl)).toEqual([])

    // A mark made by mistake, undone: owed again on the books; marked again: returned again. Once each.
    await runCli(["pix", "reopen", "--id", second, "--note", "the PSP refused the devolução"], env, 60_000)
    expect(await receivedFromPayers(c.transactionId)).toBe(sale + sale)
    await runCli(["pix", "handled", "--id", second, "--note", "returned by transfer"], env, 60_000)
    await expect(runCli(["pix", "handled", "--id", second, "--note", "again"], env, 60_000)).rejects.toThrow(
      /already marked handled/
    )
    expect(await entryKeys(c.transactionId)).toEqual([
      `pix_payment_returned:${second}`,
      `pix_payment_returned:${second}:1`,
      `pix_payment_to_return:${second}`,
      `pix_payment_to_return:${second}:1`
    ])
    expect(await receivedFromPayers(c.transactionId)).toBe(sale)
    expect(await merchantBalance()).toBe(balanceAfterSale)
    expect(await checkLedger(databaseUrl)).toEqual([])
  }, 180_000)
})
