import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A bolepix second PIX left `returning` is asked of the PSP again (docs/boleto.md "Bolepix", the
 * `return_bolepix_pix` job): `asked_again` counts the job's asks, `asked_at` is when the devolução was last
 * asked (null: only the first ask, right after the record, at `created_at`). The job claims the due ones in
 * one statement (`for update skip locked`, then `asked_at = now()`), so two workers never ask for the same
 * one at once and the next run waits its interval. The partial index holds only what is still `returning`.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table bolepix_second_payments
  add column asked_again int not null default 0,
  add column asked_at timestamptz;
create index bolepix_second_payments_returning on bolepix_second_payments ((coalesce(asked_at, created_at)))
  where status = 'returning';
`)
)
