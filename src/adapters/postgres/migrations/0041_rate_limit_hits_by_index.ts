import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * `rate_limit_take` reads a key's hits only through `rate_limit_hits_key_at` (issue 22,
 * docs/performance.md "The rate limit's scan"). Its delete of the expired hits (`key_id = $1 and at <=
 * now − window`) was planned as a sequential scan of the whole table whenever the planner guessed that
 * the bound kept many rows: with no statistics yet, or with a histogram older than the window, which is
 * the usual case, as the window always lies past the last `analyze`. Each admission then read every hit
 * of the window (60,000 rows at 1,000 requests a second) under its key's lock, so the cost of a request
 * grew with the key's traffic and the key's requests queued behind it. With sequential scans off inside
 * the function the delete reads only the expired entries of the index (none, most of the time); the
 * function's other statements already used the index. A later `create or replace function` drops the
 * setting unless it repeats it (`set enable_seqscan = off`); `rateLimitTake.test.ts` fails if it does not.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`alter function rate_limit_take(uuid, integer, interval) set enable_seqscan = off`)
)
