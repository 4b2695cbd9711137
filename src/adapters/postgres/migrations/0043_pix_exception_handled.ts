import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A PIX received that did not settle its charge is marked handled by the operator who dealt with it (returned
 * it at the PSP, or matched it by hand): when and what was done (`npm run cli -- pix handled`, docs/operations.md
 * "What waits for an operator"). The row and its outcome stay as they were, for the record; the partial index
 * now holds only the exceptions still waiting, which is what the operator queue and the CLI's list read.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table pix_received
  add column handled_at timestamptz,
  add column handled_note text,
  add constraint pix_received_handled_note check ((handled_at is null) = (handled_note is null));
drop index pix_received_exceptions;
create index pix_received_exceptions on pix_received (received_at)
  where outcome <> 'settled' and outcome <> 'returned' and handled_at is null;
`)
)
