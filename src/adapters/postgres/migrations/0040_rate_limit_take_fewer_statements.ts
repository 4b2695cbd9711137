import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The same rolling window (migrations 0010, 0011), in five statements instead of seven (issue 22,
 * docs/performance.md "The rate limit's statements"): every admission runs this function, and PL/pgSQL
 * pays for each statement it executes. The commit setting and the key's lock are taken in one
 * statement; the expired hits are deleted and the oldest hit left is read in one (in the same statement
 * the delete is not visible yet, so the read skips what it deletes); the count is written once, by an
 * upsert, instead of an upsert and an update. The result and the rows left are the ones the previous
 * body gave: the same lock (a process of the previous version, during a rolling deployment, takes turns
 * with this one), the clock read after it, the same hits counted.
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
  -- The slot's commit need not wait for the disk (migration 0011); this transaction only.
  perform set_config('synchronous_commit', 'off', true),
          pg_advisory_xact_lock(hashtextextended('rate_limit:' || p_key::text, 0));
  -- Read the clock after the lock, so that hits are stamped in the order they were accepted.
  v_now := clock_timestamp();
  with gone as (delete from rate_limit_hits where key_id = p_key and at <= v_now - p_window returning 1)
  select (select count(*) from gone),
         (select min(at) from rate_limit_hits where key_id = p_key and at > v_now - p_window)
  into v_gone, v_oldest;
  select greatest(0, c.count - v_gone) into v_count from rate_limit_counts c where c.key_id = p_key;
  v_count := coalesce(v_count, 0);
  if v_count < p_limit then
    insert into rate_limit_hits (key_id, at) values (p_key, v_now);
    insert into rate_limit_counts as c (key_id, count) values (p_key, v_count + 1)
    on conflict (key_id) do update set count = excluded.count;
    return query select true, p_limit - v_count - 1,
      (extract(epoch from (coalesce(v_oldest, v_now) + p_window - v_now)) * 1000)::bigint;
  else
    if v_gone > 0 then
      update rate_limit_counts set count = v_count where key_id = p_key;
    end if;
    -- A slot frees when the hit that keeps the window full falls out of it.
    select at into v_frees from rate_limit_hits where key_id = p_key
      order by at offset (v_count - p_limit) limit 1;
    return query select false, 0,
      greatest(1, (extract(epoch from (v_frees + p_window - v_now)) * 1000)::bigint);
  end if;
end $$;
`)
)
