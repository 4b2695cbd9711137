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
`)
)
