import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Which acquirer charged a card transaction, when the deployment routes among several (issue 24 §3,
 * docs/providers.md "Cards: acquirers and failover"): refunds and status queries go back to it. An
 * opaque name (the adapter's); null for the sandbox and for everything charged before this migration,
 * which the router sends to the first acquirer of its list.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table transactions add column acquirer text;
`)
)
