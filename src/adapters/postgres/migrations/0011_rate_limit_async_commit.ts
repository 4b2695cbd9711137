import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A rate-limit slot commits without waiting for the WAL to reach the disk (issue 10, README
 * "Performance"). Every request of a key takes the key's lock and holds it until its commit, so the
 * key's requests pass one at a time, each for as long as a WAL flush takes. When a checkpoint loads
 * the disk that flush grows from under a millisecond to several, and a key's throughput falls with it:
 * the 10-minute soak at 175 req/s fell behind from its fifth minute with the service's CPU half idle.
 * With `synchronous_commit` off for that one transaction the lock is held for the function's own work.
 * What it gives up: a crash of PostgreSQL itself may forget the hits of its last moments (at most
 * three `wal_writer_delay`s, 600 ms by default), so a key could briefly be allowed a few requests more
 * than its limit. The count stays exact while PostgreSQL runs, and is shared by every API process as
 * before (a commit is visible to other sessions at once, whether or not it is flushed yet). A charge's
 * own transaction still commits synchronously, and its flush carries every earlier record with it.
 * Only the admission statement's own transaction calls this function.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create or replace function rate_limit_take(p_key uuid, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_ms bigint)
language plpgsql as $$
declare
  v_now timestamptz;
  v_gone integer;
  v_count integer;
  v_oldest timestamptz;
  v_frees timestamptz;
begin
  -- The slot's commit need not wait for the disk (migration 0011's comment); this transaction only.
  perform set_config('synchronous_commit', 'off', true);
  perform pg_advisory_xact_lock(hashtextextended('rate_limit:' || p_key::text, 0));
  -- Read the clock after the lock, so that hits are stamped in the order they were accepted.
  v_now := clock_timestamp();
  with gone as (delete from rate_limit_hits where key_id = p_key and at <= v_now - p_window returning 1)
  select count(*) into v_gone from gone;
  insert into rate_limit_counts as c (key_id, count) values (p_key, 0)
  on conflict (key_id) do update set count = greatest(0, c.count - v_gone)
  returning c.count into v_count;
  select min(at) into v_oldest from rate_limit_hits where key_id = p_key;
  if v_count < p_limit then
    insert into rate_limit_hits (key_id, at) values (p_key, v_now);
    update rate_limit_counts set count = v_count + 1 where key_id = p_key;
    return query select true, p_limit - v_count - 1,
      (extract(epoch from (coalesce(v_oldest, v_now) + p_window - v_now)) * 1000)::bigint;
  else
    -- A slot frees when the hit that keeps the window full falls out of it.
    select at into v_frees from rate_limit_hits where key_id = p_key
      order by at offset (v_count - p_limit) limit 1;
    return query select false, 0,
      greatest(1, (extract(epoch from (v_frees + p_window - v_now)) * 1000)::bigint);
  end if;
end $$;
`)
)
