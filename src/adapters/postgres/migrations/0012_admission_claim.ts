import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The idempotency claim (CONTRACT §6) as one function, and admission with the claim in one round trip
 * (issue 10: "a SQL function for key lookup + rate limit + idempotency claim").
 *
 * `idempotency_claim` is the decision IdempotencyStoreLive used to make in up to two statements: insert
 * a new claim, or take over one that is older than 24 hours or whose lease ran out with no response
 * stored (same fingerprint only); otherwise say what is there. One statement now, whatever the outcome.
 *
 * `api_key_admit_claim` is `api_key_admit` (migration 0010) followed, for an admitted request that got
 * its rate-limit slot, by that claim. A refused key, scope or slot claims nothing.
 *
 * The claim shares the slot's transaction, which commits without waiting for the WAL flush (migration
 * 0011). What that can lose, and only if PostgreSQL itself crashes in the next ~600 ms: a claim whose
 * request has not committed anything yet. Whatever that request records commits synchronously, and its
 * flush carries the claim with it (the WAL is written in order), so a claim that a charge, a refund or
 * a stored reply depends on is never lost; a card charge commits its PROCESSING row before the acquirer
 * is asked. A lost claim means a retry is a first attempt with a new resource id, which is what it is:
 * nothing of the first attempt was recorded (a PIX or boleto provider may hold a charge whose answer
 * nobody received; it expires unpaid).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create function idempotency_claim(p_account uuid, p_key text, p_fingerprint text, p_resource uuid)
returns table (outcome text, resource_id uuid, response_status integer, response_body text)
language plpgsql as $$
#variable_conflict use_column
declare
  v_resource uuid;
  r record;
begin
  insert into idempotency_keys as k (account_id, key, fingerprint, resource_id, locked_until)
  values (p_account, p_key, p_fingerprint, p_resource, now() + interval '60 seconds')
  on conflict (account_id, key) do update set
    fingerprint = excluded.fingerprint,
    resource_id = case when k.created_at < now() - interval '24 hours' then excluded.resource_id
                  else k.resource_id end,
    created_at = case when k.created_at < now() - interval '24 hours' then now() else k.created_at end,
    response_status = case when k.created_at < now() - interval '24 hours' then null else k.response_status end,
    response_body = case when k.created_at < now() - interval '24 hours' then null else k.response_body end,
    locked_until = excluded.locked_until
  where k.created_at < now() - interval '24 hours'
     or (k.response_status is null and k.locked_until < now() and k.fingerprint = excluded.fingerprint)
  returning k.resource_id into v_resource;
  if found then
    return query select 'acquired'::text, v_resource, null::integer, null::text;
    return;
  end if;
  select k.fingerprint, k.response_status, k.response_body into r
  from idempotency_keys k where k.account_id = p_account and k.key = p_key;
  if not found then
    -- Deleted in between: the client retries.
    return query select 'in_flight'::text, null::uuid, null::integer, null::text;
  elsif r.fingerprint <> p_fingerprint then
    return query select 'mismatch'::text, null::uuid, null::integer, null::text;
  elsif r.response_status is not null and r.response_body is not null then
    return query select 'completed'::text, null::uuid, r.response_status, r.response_body;
  else
    return query select 'in_flight'::text, null::uuid, null::integer, null::text;
  end if;
end $$;

create function api_key_admit_claim(p_digest bytea, p_needed text, p_window interval,
                                    p_key text, p_fingerprint text, p_resource uuid)
returns table (key_id uuid, account_id uuid, scopes text[], rate_limit integer, granted boolean,
               allowed boolean, remaining integer, reset_ms bigint,
               claim text, claim_resource_id uuid, claim_status integer, claim_body text)
language plpgsql as $$
declare
  a record;
  c record;
begin
  select * into a from api_key_admit(p_digest, p_needed, p_window);
  if not found then
    return;
  end if;
  if not (a.granted and a.allowed) then
    return query select a.key_id, a.account_id, a.scopes, a.rate_limit, a.granted, a.allowed, a.remaining,
      a.reset_ms, null::text, null::uuid, null::integer, null::text;
    return;
  end if;
  select * into c from idempotency_claim(a.account_id, p_key, p_fingerprint, p_resource);
  return query select a.key_id, a.account_id, a.scopes, a.rate_limit, a.granted, a.allowed, a.remaining,
    a.reset_ms, c.outcome, c.resource_id, c.response_status, c.response_body;
end $$;
`)
)
