import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The payment that settled a transaction, which a PIX refund of the sale names (`ReceivedPixRepo.
 * settlingPayment`, docs/providers.md "Refunds"): read by every PIX refund request and every pending refund
 * the sweep asks about, on a table that grows with every PIX received.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`create index pix_received_settling on pix_received (transaction_id) where outcome = 'settled'`)
)
