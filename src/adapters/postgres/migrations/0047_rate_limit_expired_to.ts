import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * `rate_limit_take` (0042) deletes a window's expired hits on each request:
 * `delete … where key_id = k and at <= now − window`. Its scan of `rate_limit_hits_key_at` starts at the
 * key's first entry, so it walks every entry it deleted before and that no vacuum has removed yet. With
 * 2,000 requests a second that is 12,000 entries after six seconds. Simulated in SQL, one admission
 * took 0.43 ms with that scan and 0.21 ms with a bounded one (docs/performance.md "The rate limit's
 * expired hits").
 *
 * The window's row now keeps `expired_to`: every hit at or before it is gone. The function reads the
 * row first and deletes only `at > expired_to and at <= now − window`. It then sets
 * `expired_to = now − window` when it writes the row, as before, under the key's lock.
 *
 * The delete takes the same rows as before. Why: the invariant "no hit at or before expired_to"
 * holds after every call. Hits are stamped with `now`, and `now` is later than `now − window`. A clock
 * that went back past `expired_to` (`now − window < expired_to`) takes the unbounded delete for that
 * call. A row without `expired_to` also takes it: a row written before this migration, one inserted
 * by a test, or a window `rate_limit_prune` emptied (0046).
 *
 * The function's signature and answers are unchanged, so a process of the previous version calls it
 * as before.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table rate_limit_counts add column expired_to timestamptz;

create or replace function rate_limit_take(p_key uuid, p_limit integer, p_window interval, p_n integer default 1)
returns table (allowed boolean, remaining integer, reset_ms bigint)
language plpgsql
set enable_seqscan = off
as $$
declare
  v_now timestamptz;
  v_gone integer;
  v_count integer;
  v_expired_to timestamptz;
  v_take integer;
  v_oldest timestamptz;
  v_frees timestamptz;
begin
  -- The slot's commit need not wait for the disk (migration 0011); this transaction only.
  perform set_config('synchronous_commit', 'off', true),
          pg_advisory_xact_lock(hashtextextended('rate_limit:' || p_key::text, 0));
  -- Read the clock after the lock, so that hits are stamped in the order they were accepted.
  v_now := clock_timestamp();
  select c.count, c.expired_to into v_count, v_expired_to from rate_limit_counts c where c.key_id = p_key;
  if v_expired_to is null or v_expired_to > v_now - p_window then
    v_expired_to := '-infinity';
  end if;
  with gone as (
    delete from rate_limit_hits
    where key_id = p_key and at > v_expired_to and at <= v_now - p_window
    returning 1
  )
  select (select count(*) from gone),
         (select min(at) from rate_limit_hits where key_id = p_key and at > v_now - p_window)
  into v_gone, v_oldest;
  v_count := greatest(0, coalesce(v_count, 0) - v_gone);
  v_take := least(p_n, greatest(0, p_limit - v_count));
  if v_take > 0 then
    insert into rate_limit_hits (key_id, at) select p_key, v_now from generate_series(1, v_take);
    insert into rate_limit_counts as c (key_id, count, expired_to) values (p_key, v_count + v_take, v_now - p_window)
    on conflict (key_id) do update set count = excluded.count, expired_to = excluded.expired_to;
    return query select true, p_limit - v_count - i,
      (extract(epoch from (coalesce(v_oldest, v_now) + p_window - v_now)) * 1000)::bigint
      from generate_series(1, v_take) i;
  elsif v_gone > 0 then
    update rate_limit_counts set count = v_count, expired_to = v_now - p_window where key_id = p_key;
  end if;
  if v_take < p_n then
    -- A slot frees when the hit that keeps the window full falls out of it.
    select at into v_frees from rate_limit_hits where key_id = p_key
      order by at offset (v_count + v_take - p_limit) limit 1;
    return query select false, 0,
      greatest(1, (extract(epoch from (v_frees + p_window - v_now)) * 1000)::bigint)
      from generate_series(v_take + 1, p_n);
  end if;
end $$;
`)
)
