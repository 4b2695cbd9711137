import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Key lookup, scope check and rate-limit slot in one round trip (issue 10). The scope rule is the one
 * of src/http/shared/scopes.ts `grants`: no scopes (a primary key) grants everything, `*` too, then the
 * scope itself or `<resource>:*`. A key refused its scope takes no slot. The slot is still taken by
 * rate_limit_take, in the statement's own transaction, so every API process counts together.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
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
