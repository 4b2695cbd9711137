import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Key lookup, scope check and rate-limit slot in one round trip, and a rate-limit slot in O(1)
 * (issue 10). The scope rule is the one src/http/shared/scopes.ts describes: no scopes (a primary key)
 * grants everything, `*` too, then the scope itself or `<resource>:*`. A key refused its scope takes no
 * slot. The slot is still taken by rate_limit_take, in the statement's own transaction, so every API
 * process counts together.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
-- The rolling window stays exact, but no longer counts its hits on every request: a key's count is
-- kept beside them and moved by what each request adds and expires, so a request costs O(1) however
-- many hits the window holds (at 1,000 requests/s a window holds 60,000).
create table rate_limit_counts (
  key_id uuid primary key,
  count integer not null check (count >= 0)
);
insert into rate_limit_counts (key_id, count) select key_id, count(*) from rate_limit_hits group by key_id;

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

create function api_key_admit(p_digest bytea, p_needed text, p_window interval)
returns table (key_id uuid, account_id uuid, scopes text[], rate_limit integer, granted boolean,
               allowed boolean, remaining integer, reset_ms bigint)
language plpgsql as $$
declare
  k record;
  r record;
begin
  select a.id, a.account_id, a.scopes, a.rate_limit into k from api_keys a where a.key_digest = p_digest and a.active;
  if not found then
    return;
  end if;
  if not (k.scopes is null or '*' = any(k.scopes) or p_needed = any(k.scopes)
          or (split_part(p_needed, ':', 1) || ':*') = any(k.scopes)) then
    return query select k.id, k.account_id, k.scopes, k.rate_limit, false, false, 0, 0::bigint;
    return;
  end if;
  select * into r from rate_limit_take(k.id, k.rate_limit, p_window);
  return query select k.id, k.account_id, k.scopes, k.rate_limit, true, r.allowed, r.remaining, r.reset_ms;
end $$;
`)
)
