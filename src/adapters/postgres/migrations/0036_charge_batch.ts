import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A PIX charge after its admission in one statement (issue 22 §2, docs/performance.md).
 *
 * `expect_unchanged` is the precondition of a batch (deferred.ts `withDeferredBatch`): the charge was
 * decided on the order as read a moment before; the batch that records it locks the order and fails
 * with SQLSTATE GW409, writing nothing, if the order is no longer as read. The caller then takes the
 * locking path (BEGIN, order FOR UPDATE, checked again, the writes, COMMIT), which answers the reason.
 * The rule stays in the application: the database only compares what was read with what is there.
 *
 * events_account_created (account_id, created_at) is a prefix of events_account_newest (account_id,
 * created_at desc, id desc; migration 0024), which serves every read of the account's events in either
 * direction: the older one only cost every event an index insertion.
 *
 * The running count of migration 0013 picked its shard by backend id (pid % 32): two connections of
 * the same shard queued on its row until the first one's COMMIT, its WAL flush included, so that two
 * charges' flushes could not share one write. With 8 connections busy, two of them share a shard more
 * often than not (pg_stat_statements under 8 clients: the shard's upsert took 0.8 ms of every charge,
 * 0.04 ms of it work). A statement now takes the first shard no other transaction holds, from its
 * backend's own onwards (pg_try_advisory_xact_lock, held to the end of the transaction: a charge still
 * updates one row); only when all 32 are taken does it wait, as before, for its backend's own. Every
 * writer of the count goes through these two functions, so a shard's lock is its row's.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create function expect_unchanged(p_holds boolean) returns boolean
language plpgsql as $$
begin
  if not p_holds then
    raise exception 'a row read before this statement has changed since' using errcode = 'GW409';
  end if;
  return true;
end $$;

drop index events_account_created;

create function transaction_totals_shard(p_account uuid) returns smallint
language plpgsql as $$
declare
  v_first integer := pg_backend_pid() % 32;
begin
  for i in 0..31 loop
    if pg_try_advisory_xact_lock(hashtextextended('transaction_totals:' || p_account::text, (v_first + i) % 32)) then
      return ((v_first + i) % 32)::smallint;
    end if;
  end loop;
  perform pg_advisory_xact_lock(hashtextextended('transaction_totals:' || p_account::text, v_first));
  return v_first::smallint;
end $$;

create or replace function transaction_totals_add() returns trigger
language plpgsql as $$
begin
  insert into transaction_totals as t (account_id, shard, n)
  select account_id, transaction_totals_shard(account_id), n
  from (select account_id, count(*) as n from added group by account_id order by account_id) c
  on conflict (account_id, shard) do update set n = t.n + excluded.n;
  return null;
end $$;

create or replace function transaction_totals_remove() returns trigger
language plpgsql as $$
begin
  insert into transaction_totals as t (account_id, shard, n)
  select account_id, transaction_totals_shard(account_id), -n
  from (select account_id, count(*) as n from removed group by account_id order by account_id) c
  on conflict (account_id, shard) do update set n = t.n + excluded.n;
  return null;
end $$;
`)
)
