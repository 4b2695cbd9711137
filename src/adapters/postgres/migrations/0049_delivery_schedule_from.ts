import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Where a delivery's retry schedule starts (docs/webhooks.md "Deliveries"): the number of attempts it had
 * when its current WEBHOOK_RETRY_SCHEDULE began, 0 at creation and its `attempts` at each manual resend,
 * so a resend retries on the whole schedule again while `attempts` keeps counting every attempt made.
 * A constant default: no row is rewritten.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table webhook_deliveries add column schedule_from integer not null default 0;
`)
)
