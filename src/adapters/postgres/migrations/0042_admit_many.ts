import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Several admissions of one key in one call (issue 22, docs/performance.md "Admissions in batches"):
 * `rate_limit_take` and `api_key_admit` take `p_n`, the number of requests asking at once (1 by
 * default, so every caller of the three-argument forms, `api_key_admit_claim` and a process of the
 * previous version included, gets what it got). Under the key's lock the first `least(p_n, limit −
 * count)` are accepted, each with the `remaining` it would have had alone, one after the other; the
 * rest are refused as a lone request would be once the window is full. One row per request, the
 * accepted first. The window stays exact (CONTRACT §5): the hits are the accepted requests, stamped
 * with the clock read after the lock; a refused request adds none.
 *
 * The body is migration 0040's with `p_n` in place of 1, and with 0041's `enable_seqscan = off`,
 * which a replaced function would otherwise lose.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
drop function rate_limit_take(uuid, integer, interval);
create function rate_limit_take(p_key uuid, p_limit integer, p_window interval, p_n integer default 1)
returns table (allowed boolean, remaining integer, reset_ms bigint)
language plpgsql
set enable_seqscan = off
as $$
declare
  v_now timestamptz;
  v_gone integer;
  v_count integer;
  v_take integer;
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
  v_take := least(p_n, greatest(0, p_limit - v_count));
  if v_take > 0 then
    insert into rate_limit_hits (key_id, at) select p_key, v_now from generate_series(1, v_take);
    insert into rate_limit_counts as c (key_id, count) values (p_key, v_count + v_take)
    on conflict (key_id) do update set count = excluded.count;
    return query select true, p_limit - v_count - i,
      (extract(epoch from (coalesce(v_oldest, v_now) + p_window - v_now)) * 1000)::bigint
      from generate_series(1, v_take) i;
  elsif v_gone > 0 then
    update rate_limit_counts set count = v_count where key_id = p_key;
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

drop function api_key_admit(bytea, text, interval);
create function api_key_admit(p_digest bytea, p_needed text, p_window interval, p_n integer default 1)
returns table (key_id uuid, account_id uuid, scopes text[], rate_limit integer, granted boolean,
               allowed boolean, remaining integer, reset_ms bigint)
language plpgsql as $$
declare
  k record;
begin
  select a.id, a.account_id, a.scopes, a.rate_limit into k from api_keys a where a.key_digest = p_digest and a.active;
  if not found then
    return;
  end if;
  if not (k.scopes is null or '*' = any(k.scopes) or p_needed = any(k.scopes)
          or (split_part(p_needed, ':', 1) || ':*') = any(k.scopes)) then
    return query select k.id, k.account_id, k.scopes, k.rate_limit, false, false, 0, 0::bigint
      from generate_series(1, p_n);
    return;
  end if;
  return query select k.id, k.account_id, k.scopes, k.rate_limit, true, r.allowed, r.remaining, r.reset_ms
    from rate_limit_take(k.id, k.rate_limit, p_window, p_n) r;
end $$;
`)
)
