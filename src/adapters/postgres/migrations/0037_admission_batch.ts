import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Concurrent admissions in one statement (issue 22 §2, docs/performance.md "Admissions together"):
 * KeyAdmissionLive sends the admissions that arrive while one is on the wire as one
 * `select … from unnest(…) left join lateral api_key_admit_any(…)`, one call per request, in order.
 * Each call is the same as before (api_key_admit, or api_key_admit_claim with an Idempotency-Key), so
 * every request still takes its own slot of its key's window, exactly, under the key's lock; the
 * calls of one statement share its transaction and its commit (asynchronous, migration 0011).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create function api_key_admit_any(p_digest bytea, p_needed text, p_window interval,
                                  p_key text, p_fingerprint text, p_resource uuid, p_owner integer)
returns table (key_id uuid, account_id uuid, scopes text[], rate_limit integer, granted boolean,
               allowed boolean, remaining integer, reset_ms bigint,
               claim text, claim_resource_id uuid, claim_status integer, claim_body text)
language plpgsql as $$
begin
  if p_key is null then
    return query select a.key_id, a.account_id, a.scopes, a.rate_limit, a.granted, a.allowed, a.remaining,
      a.reset_ms, null::text, null::uuid, null::integer, null::text
    from api_key_admit(p_digest, p_needed, p_window) a;
  else
    return query select * from api_key_admit_claim(p_digest, p_needed, p_window, p_key, p_fingerprint,
                                                    p_resource, p_owner);
  end if;
end $$;
`)
)
