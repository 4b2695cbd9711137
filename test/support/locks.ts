import type pg from "pg"

/**
 * Until another session of the database waits for a lock `holder` holds (pg_blocking_pids): the moment a
 * test that holds one side of an interleaving from its own connection lets the other side go on.
 */
export const blockedBy = async (db: pg.Pool, holder: pg.PoolClient, timeoutMs = 5_000) => {
  const pid = (await holder.query("select pg_backend_pid() as pid")).rows[0].pid
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const { rows } = await db.query(
      "select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))",
      [pid]
    )
    if (rows[0].n > 0) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error("nothing waited on the test's lock")
}
