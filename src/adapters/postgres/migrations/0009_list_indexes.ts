import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The delivery list (interface-v2 `GET /api/webhooks/deliveries`) streams newest first with ties broken
 * by id, in keyset pages: an index in exactly that order lets each page start where the last one stopped
 * without sorting the account's deliveries again. It replaces the index without `id`, which served the
 * same queries, so delivery inserts maintain no extra index. Transactions, orders and customers already
 * have `(account_id, created_at, id)` (0001).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create index webhook_deliveries_account_created_id on webhook_deliveries (account_id, created_at desc, id);
drop index webhook_deliveries_account;
`)
)
