import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The instant below which the rows of a feed stamped by `clock_timestamp()` at insert (events, ledger
 * postings: migration 0052) are all there: no transaction still running can add one below it. A row is
 * stamped when it is written, not when its transaction commits, so a transaction that commits late would
 * otherwise land behind rows a client has already paged past — a poller walking events newest first, a
 * statement walked by its cursor — and never be seen (docs/webhooks.md "Events").
 *
 * A running transaction that has written (it holds an xid) may still add rows stamped after its start; one
 * that has not written will stamp any row it adds later than now. So the horizon is the start of the oldest
 * running transaction of this database that has written, or now when none has. Read in a statement of its own before the
 * list's: read in the same statement, a transaction that commits between that statement's snapshot and its
 * read of `pg_stat_activity` would be in neither. The gateway's connections share one role, whose sessions
 * `pg_stat_activity` shows in full. The cost: a list shows a row only once the writes that began before it
 * have ended (milliseconds; as long as a long writing transaction, such as a migration, runs).
 */
export const settledHorizon = (sql: SqlClient.SqlClient): Effect.Effect<string> =>
  sql<{ at: string }>`
    select coalesce(min(xact_start), clock_timestamp())::text as at
    from pg_stat_activity
    where datname = current_database() and backend_xid is not null and pid <> pg_backend_pid()`.pipe(
    Effect.map((rows) => rows[0]!.at),
    Effect.orDie
  )
