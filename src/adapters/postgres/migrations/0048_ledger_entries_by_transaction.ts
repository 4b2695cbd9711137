import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A transaction's ledger entries, found by its id: a refund measures what the sale's earlier refunds took
 * against the books (LedgerLive `refundsTaken`, docs/ledger.md "Refunds"), not against its own columns, so
 * that a refund that failed while another was in flight leaves nothing astray. Entries are a handful per
 * sale (the sale, one per receivable settled, refunds, disputes), so the index costs little to keep.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create index ledger_entries_by_transaction on ledger_entries (account_id, transaction_id)
  where transaction_id is not null;
`)
)
