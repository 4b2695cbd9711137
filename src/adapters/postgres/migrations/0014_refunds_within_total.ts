import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A refund reaches `amount_total`, not `amount` (CONTRACT-v1 §2, §3: refundable = amount_total −
 * refunded_amount). Migration 0004 moved the bound on refunds in flight to `amount_total`, but the
 * foundation's unnamed check (`transactions_check`: refunded_amount ≤ amount) stayed, so refunding a
 * card sold in installments with interest past its `amount` failed the row update with a 500 (issue 19
 * item 6). The bound is now the one the contract states, under a name that says so.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table transactions
  drop constraint transactions_check,
  add constraint transactions_refunded_within_total check (refunded_amount >= 0 and refunded_amount <= amount_total);
`)
)
