import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Expired rate-limit hits of windows nobody is using (docs/operations.md "Housekeeping"). `rate_limit_take`
 * (0042) deletes a window's expired hits only when the window is next used: an API key revoked or left
 * idle, or a payment link visited once, kept its last minute of hits (up to its limit) for ever, and with
 * every link ever visited the table only grew. `rate_limit_prune(window, n)` does what `rate_limit_take`
 * does first, for up to `n` windows with hits older than `window`: under the window's own lock (the one
 * `rate_limit_take` takes, so no request of it is counted meanwhile), it deletes those hits and lowers the
 * window's count by as many, keeping the count equal to the hits left (what `rate_limit_take` relies on).
 * It returns the windows and hits it pruned; the caller repeats it until fewer than `n` windows come back,
 * each call its own transaction, so a request of a pruned window waits for at most `n` small deletes.
 * The windows are found through `rate_limit_counts` (one row per window) and the hits' index, not by a
 * scan of every hit; `window` must be the one the windows are taken with (60 seconds, for keys and links).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create function rate_limit_prune(p_window interval, p_windows integer)
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
    v_windows := v_windows + 1;
    v_hits := v_hits + v_gone;
  end loop;
  return query select v_windows, v_hits;
end $$;
`)
)
