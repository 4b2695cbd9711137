/**
 * Migrations that change rows already there, applied to a database as the migration before left it (rows
 * written as the code of then wrote them), through the operator's CLI, which migrates the database it opens:
 * - 0045 keeps every operator's mark on a PIX exception (docs/operations.md "What waits for an operator"):
 *   the marks that stood in `pix_received` are copied in as each payment's first, at the instant it was
 *   made, and nothing for a payment never marked;
 * - 0046 deletes the `rate_limit_counts` rows the prune of 0044 left at 0 (docs/operations.md
 *   "Housekeeping"), and no row of a window in use.
 */
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { runCli } from "./support/processes.ts"

const EMPTIED = "6f1c1a52-3a58-4f0e-9a43-0c7f0a4d2b10"
const IN_USE = "0b7e5d0c-1f7e-4d55-8f0e-5a3f2c9d4e21"
let databaseUrl: string
let db: pg.Client

beforeAll(async () => {
  databaseUrl = await createMigratedTestDatabase()
  db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  // The database as 0044 left it: no table of marks, windows emptied by its prune at 0, no migration after 0044
  // applied (the migrator runs only those above the last one applied: what 0047–0051 and 0053–0058 made goes
  // too; 0052 only sets defaults and replaces a function, and 0055's constraint on posting types is replaced
  // as it is, so they run again as they are; 0057's constraint is put back as 0055 left it).
  await db.query("drop table pix_received_marks")
  await db.query("alter table rate_limit_counts drop column expired_to")
  await db.query("drop index ledger_entries_by_transaction")
  await db.query("alter table webhook_deliveries drop column schedule_from")
  await db.query("drop table login_attempts")
  await db.query("drop function login_attempt_take, login_attempts_clear, login_attempts_key")
  await db.query("drop index refunds_pending")
  await db.query("drop index pix_received_settling")
  await db.query("drop table ledger_last_check")
  await db.query("drop table boleto_payments_to_return")
  await db.query("drop function order_charge_in_flight")
  await db.query("drop index transactions_card_token")
  await db.query(
    `alter table ledger_postings drop constraint ledger_postings_type_check;
     alter table ledger_postings add constraint ledger_postings_type_check
       check (type in ('sale', 'fee', 'settlement', 'reserve', 'reserve_release', 'refund', 'chargeback', 'med',
                       'split', 'withdraw', 'withdraw_reversal', 'fine', 'interest', 'discount', 'abatement',
                       'bank_fee', 'second_payment', 'second_payment_return', 'boleto_payment_to_return',
                       'boleto_payment_returned'))`
  )
  await db.query("delete from effect_sql_migrations where migration_id > 44")
  await db.query(
    `insert into rate_limit_counts (key_id, count) values ('${EMPTIED}', 0), ('${IN_USE}', 1);
     insert into rate_limit_hits (key_id, at) values ('${IN_USE}', now())`
  )
  await db.query(
    `insert into pix_received (end_to_end_id, txid, amount, paid_at, source, outcome, handled_at, handled_note)
     values ('E00000000202611250000MARKED', 'txid-marked', 5000, now(), 'webhook', 'amount_mismatch',
             '2026-11-25T14:03:07.123Z', 'returned at the PSP'),
            ('E00000000202611250000WAITS0', 'txid-waits', 700, now(), 'reconciliation', 'unknown_charge', null, null)`
  )
}, 60_000)

afterAll(async () => {
  await db?.end()
})

describe("migrations 0045 and 0046 on a database 0044 left", () => {
  it("copies each standing mark in as the payment's first, and none for a payment never marked", async () => {
    const env = { DATABASE_URL: databaseUrl }
    const marked = await runCli<{ handledAt: string; marks: Array<{ action: string; note: string; at: string }> }>(
      ["pix", "show", "--id", "E00000000202611250000MARKED"],
      env,
      60_000
    )
    expect(marked.handledAt).toBe("2026-11-25T14:03:07.123Z")
    expect(marked.marks).toEqual([{ action: "handled", note: "returned at the PSP", at: "2026-11-25T14:03:07.123Z" }])
    const waiting = await runCli<{ handledAt: null; marks: unknown[] }>(
      ["pix", "show", "--id", "E00000000202611250000WAITS0"],
      env,
      60_000
    )
    expect(waiting).toMatchObject({ handledAt: null, marks: [] })
    // Applied once: the CLI's second start found it done and copied nothing twice.
    const { rows } = await db.query("select count(*)::int as n from pix_received_marks")
    expect(rows[0].n).toBe(1)
  }, 120_000)

  it("leaves no window's count at 0, and a window in use as it was", async () => {
    const { rows } = await db.query("select key_id, count from rate_limit_counts where key_id in ($1, $2)", [
      EMPTIED,
      IN_USE
    ])
    expect(rows).toEqual([{ key_id: IN_USE, count: 1 }])
  })
})
