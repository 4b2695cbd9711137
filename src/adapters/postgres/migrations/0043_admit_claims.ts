import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Several admissions of one key with their Idempotency-Key claims in one call (issue 22,
 * docs/performance.md "Charges admitted together"): `api_key_admit` for all of them (migration 0042:
 * the accepted first, each with the `remaining` it would have had alone), then, for each accepted
 * request in that order, the claim `api_key_admit_claim` (0017) would have made for it alone. A
 * request whose key is null claims nothing (a charge without an Idempotency-Key); a refused one claims
 * nothing either. `turn` numbers the rows from 1, the n-th for the n-th element of the arrays.
 *
 * The claims are made in the order of the arrays, under the key's lock, in one transaction: one claim
 * waiting for a row another batch holds keeps its own rows meanwhile. The caller sorts each batch by
 * key, so that batches of two keys of one account claiming the same Idempotency-Keys take their rows
 * in one order and cannot deadlock (KeyAdmissionLive; a key's own batches take turns on its lock).
 *
 * `api_key_admit_claim` stays for processes of the previous version during a rolling deployment.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create function api_key_admit_claims(p_digest bytea, p_needed text, p_window interval,
                                     p_keys text[], p_fingerprints text[], p_resources uuid[], p_owner integer)
returns table (turn integer, key_id uuid, account_id uuid, scopes text[], rate_limit integer, granted boolean,
               allowed boolean, remaining integer, reset_ms bigint,
               claim text, claim_resource_id uuid, claim_status integer, claim_body text)
language plpgsql as $$
declare
  a record;
  c record;
begin
  for a in
    select f.*, (row_number() over (order by f.allowed desc, f.remaining desc))::integer as t
    from api_key_admit(p_digest, p_needed, p_window, cardinality(p_keys)) f
    order by t
  loop
    if a.granted and a.allowed and p_keys[a.t] is not null then
      select * into c from idempotency_claim(a.account_id, p_keys[a.t], p_fingerprints[a.t], p_resources[a.t],
                                             p_owner);
      return query select a.t, a.key_id, a.account_id, a.scopes, a.rate_limit, a.granted, a.allowed, a.remaining,
        a.reset_ms, c.outcome, c.resource_id, c.response_status, c.response_body;
    else
      return query select a.t, a.key_id, a.account_id, a.scopes, a.rate_limit, a.granted, a.allowed, a.remaining,
        a.reset_ms, null::text, null::uuid, null::integer, null::text;
    end if;
  end loop;
end $$;
`)
)
