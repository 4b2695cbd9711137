import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Failed logins per email, for every API process together (docs/decisions.md "Login attempts"): the
 * database is the one thing the processes share, as for the API keys' rate limit (migrations 0010, 0040).
 * One row per email with attempts since its last successful login, keyed by a SHA-256 of the email as
 * login compares it (`lower(email)`, AccountRepoLive.findByEmail), so an address typed in another case is
 * the same row and the table keeps no address (most rows are for addresses that have no account).
 *
 * `login_attempt_take(email, max, window_seconds)` counts an attempt *before* the password is checked, in
 * one upsert, so that concurrent attempts cannot all pass a check made before any of them is counted: at
 * most `max` attempts of one email run Argon2 in a window. The window starts at the first attempt and
 * lasts `window_seconds`; one that has ended counts from one again. Past `max` nothing is taken and the
 * answer says when the window ends (Retry-After). A successful login deletes the row
 * (`login_attempts_clear`), so what is counted is the failures since. Each take also deletes up to ten rows
 * whose window has ended (on the index, skipping rows another take holds), so the addresses tried once and
 * never again do not stay for ever. Like the rate limit's slots, its commit does not wait for the disk: a
 * crash may forget the last attempts counted, never count one that was not made.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table login_attempts (
  email_digest bytea primary key,
  attempts integer not null check (attempts > 0),
  window_start timestamptz not null
);
create index login_attempts_window_start on login_attempts (window_start);

-- Stable, not volatile: called with a constant, it is evaluated once and the primary key is used.
create function login_attempts_key(p_email text) returns bytea
language sql stable as $$ select sha256(convert_to(lower(p_email), 'UTF8')) $$;

create function login_attempt_take(p_email text, p_max integer, p_window_seconds integer)
returns table (allowed boolean, retry_after_seconds integer)
language plpgsql as $$
declare
  v_key bytea := login_attempts_key(p_email);
  v_now timestamptz := clock_timestamp();
  v_window interval := make_interval(secs => p_window_seconds);
  v_start timestamptz;
  v_allowed boolean;
begin
  perform set_config('synchronous_commit', 'off', true);
  insert into login_attempts as a (email_digest, attempts, window_start) values (v_key, 1, v_now)
  on conflict (email_digest) do update
    set attempts = case when a.window_start <= v_now - v_window then 1 else a.attempts + 1 end,
        window_start = case when a.window_start <= v_now - v_window then v_now else a.window_start end
    where a.window_start <= v_now - v_window or a.attempts < p_max;
  v_allowed := found;
  -- After the take, never before: its own row is then held, and the rows another take holds are skipped,
  -- so two takes never wait on each other crosswise (a clean-up first locked other emails' rows, then
  -- waited for its own, which another take's clean-up could hold).
  delete from login_attempts where email_digest in (
    select email_digest from login_attempts where window_start <= v_now - v_window and email_digest <> v_key
    order by window_start limit 10 for update skip locked);
  if v_allowed then
    return query select true, 0;
  else
    select window_start into v_start from login_attempts where email_digest = v_key;
    return query select false, greatest(1, ceil(extract(epoch from (v_start + v_window - v_now))))::integer;
  end if;
end $$;

create function login_attempts_clear(p_email text) returns void
language sql as $$ delete from login_attempts where email_digest = login_attempts_key(p_email) $$;
`)
)
