import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The last books check's outcome, whichever process ran it (docs/operations.md "Metrics"): every process
 * reports it as `ledger_imbalance_centavos` and `ledger_check_timestamp_seconds`, read at scrape time. Each
 * process used to report what its own last check had found, so that once the books were mended and the next
 * hourly check (on another worker) found nothing, `max(ledger_imbalance_centavos)` kept the first worker's
 * stale finding and GatewayLedgerImbalance kept paging. One row, replaced by each check.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table ledger_last_check (
  only_row boolean primary key default true check (only_row),
  imbalance_centavos bigint not null check (imbalance_centavos >= 0),
  discrepancies integer not null check (discrepancies >= 0),
  checked_at timestamptz not null
)`)
)
