import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A boleto paid with its charge terms (issue 21, docs/boleto.md): the ledger posts the fine and the
 * interest the buyer paid (the merchant's revenue) and the discount and abatement it was given, each
 * under its own posting type; and the sandbox bank records the day the buyer paid (`paid_on`, what a
 * bank's retorno calls the data da ocorrência), so a test can pay late.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table ledger_postings drop constraint ledger_postings_type_check;
alter table ledger_postings add constraint ledger_postings_type_check
  check (type in ('sale', 'fee', 'settlement', 'reserve', 'reserve_release', 'refund', 'chargeback', 'med',
                  'split', 'withdraw', 'withdraw_reversal', 'fine', 'interest', 'discount', 'abatement'));
alter table sandbox_boleto_payments add column paid_on date;
`)
)
