import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The instant below which the rows of a feed stamped by `clock_timestamp()` at insert (events, ledger
 * postings: migration 0052) are all there: no transaction still running can add one below it. A row is
 * stamped when it is written, not when its transaction commits, so a transaction that commits late would
 * otherwise land behind rows a client has already paged past — a poller walking events newest first, a
 * statement walked by its cursor — and never be seen (docs/decisions.md "Feeds in commit order").
 *
 * A running transaction that has written (it holds an xid) may still add rows stamped after its start; one
 * that has not written will stamp any row it adds after now. So the horizon is the start of the oldest such
 * transaction, or this statement's start when there is none. Only the gateway's own sessions count — its
 * role and its pool's application_name, the only writers of these tables — so an operator's open psql or
 * another application's long transaction does not hold the feeds back; the gateway's own long writes (a
 * housekeeping delete, a migration) do, as long as they run. Read in a statement of its own before the
 * list's: read in the same statement, a transaction that commits between that statement's snapshot and its
 * read of `pg_stat_activity` would be in neither.
 */
export const settledHorizon = (sql: SqlClient.SqlClient): Effect.Effect<string> =>
  sql<{ at: string }>`
    select least(coalesce(min(xact_start), now()), now())::text as at
    from pg_stat_activity
    where datname = current_database() and usename = current_user
      and application_name = current_setting('application_name')
      and backend_xid is not null and pid <> pg_backend_pid()`.pipe(
    Effect.map((rows) => rows[0]!.at),
    Effect.orDie
  )
