import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Each account's number of transactions, kept as the rows come and go (issue 10, README
 * "Performance"). A v1 list answers `pagination.total` (CONTRACT-v1), and `count(*)` over the account's
 * transactions grows with the account: 8 ms at 9,000 rows, a quarter of a second at a million. In a
 * soak it was what made every request slower minute after minute, as the database spent more of its
 * CPU counting the same rows again for every page.
 *
 * The count is split over 32 rows per account, each connection always adding to the one its backend
 * id picks: concurrent charges of one account do not queue on one row's lock (held until their
 * COMMIT), and a charge never locks two of them. The triggers keep it in the same database
 * transaction as the rows it counts, one update per statement (a bulk insert too); the unfiltered
 * total is the sum of at most 32 rows, whatever the account's size. A filtered list still counts.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table transaction_totals (
  account_id uuid not null,
  shard smallint not null,
  n bigint not null,
  primary key (account_id, shard)
);

-- Per statement, from its transition table: a bulk insert adds its count once per account, in account
-- order (two statements lock the same rows in the same order).
create function transaction_totals_add() returns trigger
language plpgsql as $$
begin
  insert into transaction_totals as t (account_id, shard, n)
  select account_id, pg_backend_pid() % 32, count(*) from added group by account_id order by account_id
  on conflict (account_id, shard) do update set n = t.n + excluded.n;
  return null;
end $$;

create function transaction_totals_remove() returns trigger
language plpgsql as $$
begin
  insert into transaction_totals as t (account_id, shard, n)
  select account_id, pg_backend_pid() % 32, -count(*) from removed group by account_id order by account_id
  on conflict (account_id, shard) do update set n = t.n + excluded.n;
  return null;
end $$;

-- Created before the backfill, in the migration's transaction: the trigger's lock keeps new rows out
-- until the backfill has counted the old ones.
create trigger transactions_total_add after insert on transactions
  referencing new table as added for each statement execute function transaction_totals_add();
create trigger transactions_total_remove after delete on transactions
  referencing old table as removed for each statement execute function transaction_totals_remove();

insert into transaction_totals (account_id, shard, n)
select account_id, 0, count(*) from transactions group by account_id;
`)
)
