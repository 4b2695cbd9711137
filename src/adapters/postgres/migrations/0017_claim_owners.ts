import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An Idempotency-Key claim whose owner process is gone is taken over at once (issue 19 item 5,
 * docs/operations.md "Idempotency claims after a crash"). It waited for its 60 s lease: a service
 * SIGKILLed mid-charge and started again answered its clients' retries 409 `idempotency_key_in_use`
 * for most of a minute.
 *
 * Each process holds, for its life, a session advisory lock (class 1919000005, its random owner id) on
 * a connection of its own, and its claims record that id in `owner`. PostgreSQL releases a session's
 * locks the instant the session ends, and a session ends when its process dies: a claim whose owner's
 * lock is not held in this database belongs to a dead process, whichever process or host it ran on.
 * That is decided per owner, so API processes sharing a database never take over each other's live
 * claims. The lease stays as the backstop (an owner alive but stuck; claims of processes older than
 * this migration, whose owner is null and counts as alive).
 *
 * The takeover keeps the claim's resource id, as the lease's does: the retry resumes what the dead
 * request recorded (a charge's PROCESSING row, the acquirer's idempotency key) instead of charging
 * again. The functions of migration 0012 stay for processes of the previous version during a rolling
 * deployment; these overloads take the owner.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table idempotency_keys add column owner integer;

create function claim_owner_alive(p_owner integer) returns boolean
language sql stable as $$
  select p_owner is null or exists (
    select 1 from pg_locks l
    where l.locktype = 'advisory' and l.granted and l.objsubid = 2
      and l.database = (select oid from pg_database where datname = current_database())
      and l.classid = 1919000005 and l.objid = p_owner::oid)
$$;

create function idempotency_claim(p_account uuid, p_key text, p_fingerprint text, p_resource uuid,
                                  p_owner integer)
returns table (outcome text, resource_id uuid, response_status integer, response_body text)
language plpgsql as $$
#variable_conflict use_column
declare
  v_resource uuid;
  r record;
begin
  insert into idempotency_keys as k (account_id, key, fingerprint, resource_id, locked_until, owner)
  values (p_account, p_key, p_fingerprint, p_resource, now() + interval '60 seconds', p_owner)
  on conflict (account_id, key) do update set
    fingerprint = excluded.fingerprint,
    resource_id = case when k.created_at < now() - interval '24 hours' then excluded.resource_id
                  else k.resource_id end,
    created_at = case when k.created_at < now() - interval '24 hours' then now() else k.created_at end,
    response_status = case when k.created_at < now() - interval '24 hours' then null else k.response_status end,
    response_body = case when k.created_at < now() - interval '24 hours' then null else k.response_body end,
    locked_until = excluded.locked_until,
    owner = excluded.owner
  where k.created_at < now() - interval '24 hours'
     or (k.response_status is null and k.fingerprint = excluded.fingerprint
         and (k.locked_until < now() or not claim_owner_alive(k.owner)))
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
                                    p_key text, p_fingerprint text, p_resource uuid, p_owner integer)
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
  select * into c from idempotency_claim(a.account_id, p_key, p_fingerprint, p_resource, p_owner);
  return query select a.key_id, a.account_id, a.scopes, a.rate_limit, a.granted, a.allowed, a.remaining,
    a.reset_ms, c.outcome, c.resource_id, c.response_status, c.response_body;
end $$;
`)
)
