import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * `rate_limit_prune` (migration 0044) emptied an idle window but kept its `rate_limit_counts` row at 0: one
 * row for every key and payment link ever used, for ever (docs/operations.md "Housekeeping"). It now deletes
 * the row once the window is empty, under the window's lock as before; the next request of that window finds
 * no row and counts from zero, as for a window never used (`rate_limit_take` reads a missing row as 0 and
 * inserts it: migration 0042). The rows left at 0 before this go here: a row at 0 has no hits, and a request
 * of its window that comes meanwhile either finds it at 0 (and inserts it again) or has raised it, which the
 * delete's own `count = 0` then sees.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create or replace function rate_limit_prune(p_window interval, p_windows integer)
returns table (windows integer, hits integer)
language plpgsql
set enable_seqscan = off
as $$
declare
  v_key uuid;
  v_gone integer;
  v_windows integer := 0;
  v_hits integer := 0;
begin
  perform set_config('synchronous_commit', 'off', true);
  for v_key in
    select c.key_id from rate_limit_counts c
    where c.count > 0
      and exists (select 1 from rate_limit_hits h where h.key_id = c.key_id and h.at <= clock_timestamp() - p_window)
    limit p_windows
  loop
    perform pg_advisory_xact_lock(hashtextextended('rate_limit:' || v_key::text, 0));
    with gone as (delete from rate_limit_hits where key_id = v_key and at <= clock_timestamp() - p_window returning 1)
    select count(*) into v_gone from gone;
    update rate_limit_counts set count = greatest(0, count - v_gone) where key_id = v_key;
    delete from rate_limit_counts where key_id = v_key and count = 0;
    v_windows := v_windows + 1;
    v_hits := v_hits + v_gone;
  end loop;
  return query select v_windows, v_hits;
end $$;
delete from rate_limit_counts where count = 0;
`)
)
