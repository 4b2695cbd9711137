import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A boleto paid with its charge terms refunds what the buyer paid — principal + fine + interest − discount
 * − abatement, its `details.payment.amount` — not amount_total (issue 21; docs/boleto.md "Refunds"). The
 * bounds on refunds (0004, 0014) follow: amount_total for every other transaction, as before.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table transactions
  drop constraint transactions_refunds_within_total,
  drop constraint transactions_refunded_within_total,
  add constraint transactions_refunds_within_paid
    check (refunded_amount + refund_reserved <= coalesce((details -> 'payment' ->> 'amount')::bigint, amount_total)),
  add constraint transactions_refunded_within_paid
    check (refunded_amount >= 0
           and refunded_amount <= coalesce((details -> 'payment' ->> 'amount')::bigint, amount_total));
`)
)
