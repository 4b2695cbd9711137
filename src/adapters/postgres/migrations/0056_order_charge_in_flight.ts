import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Whether a card charge of an order is PROCESSING (its outcome unknown), read in a statement of its own: a
 * PL/pgSQL function's query takes a fresh snapshot under READ COMMITTED, so, called above the row lock of the
 * one-statement PIX charge's precondition (OrderRepoLive.expectAsRead), it sees a card charge whose insert
 * committed while the statement waited for the order's lock, which a subquery of that statement, reading the
 * statement's own snapshot, would miss (docs/providers.md "Known limits"). Its caller keeps it above the lock
 * (the planner would push even a volatile filter into the scan below it).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create function order_charge_in_flight(p_account uuid, p_order uuid) returns boolean
language plpgsql volatile as $$
begin
  return exists (
    select 1 from transactions
    where account_id = p_account and order_id = p_order and status = 'PROCESSING'
  );
end $$`)
)
