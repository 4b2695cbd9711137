import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every operator's mark on a PIX exception, and every mark undone, kept (docs/operations.md "What waits for an
 * operator"): `pix_received` holds only the mark that stands, so a reopened exception lost the one undone. Written
 * in the same transaction as the row's change, under its lock; never updated or deleted. The marks made before
 * this migration are copied in as they stand (those undone since are gone: they were never kept).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table pix_received_marks (
  id bigint generated always as identity primary key,
  end_to_end_id text not null references pix_received (end_to_end_id),
  action text not null check (action in ('handled', 'reopened')),
  note text not null check (note <> ''),
  at timestamptz not null default now()
);
create index pix_received_marks_by_payment on pix_received_marks (end_to_end_id, id);
insert into pix_received_marks (end_to_end_id, action, note, at)
  select end_to_end_id, 'handled', handled_note, handled_at from pix_received
  where handled_at is not null order by handled_at;
`)
)
