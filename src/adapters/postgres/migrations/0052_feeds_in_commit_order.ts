import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Events and ledger postings stamped when written (`clock_timestamp()`), not when their transaction began
 * (`now()`): a transaction that waited on a row lock stamped its rows with its start, behind rows that
 * others committed meanwhile, where a client paging the feed had already passed (settledHorizon.ts).
 *
 * A balance's `updated_at` is the time of its latest posting (CONTRACT-v1 §7): the trigger kept the last one
 * applied, which a transaction committing late could move back.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table events alter column created_at set default clock_timestamp();
alter table ledger_postings alter column created_at set default clock_timestamp();

create or replace function ledger_apply_posting() returns trigger language plpgsql as $$
begin
  if new.party <> 'system' then
    insert into ledger_balances as b (account_id, party, book, amount, updated_at)
    values (new.account_id, new.party, new.book, new.amount, new.created_at)
    on conflict (account_id, party, book)
    do update set amount = b.amount + excluded.amount, updated_at = greatest(b.updated_at, excluded.updated_at);
  end if;
  return null;
end $$;
`)
)
