import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Refunds still PENDING, oldest first: the PIX refunds the reconciliation sweep asks again
 * (`RefundRepo.pendingPix`) and the card refunds whose outcome is unknown, which wait for an operator
 * (`operator_queue{kind="card_refund_unknown"}`, read at every scrape; docs/operations.md "What waits for an
 * operator"). A few rows among every refund ever made: both read this instead of the whole table.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`create index refunds_pending on refunds (created_at) where status = 'PENDING'`)
)
