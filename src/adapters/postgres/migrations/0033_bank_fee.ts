import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The bank's fee on a boleto's occurrence (CNAB 240 segment T 199–213: registration, liquidation,
 * write-off), posted on the gateway's books under its own type: the collection agreement is the
 * gateway's, so the bank's fee is the gateway's cost, not the merchant's (docs/providers.md).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table ledger_postings drop constraint ledger_postings_type_check;
alter table ledger_postings add constraint ledger_postings_type_check
  check (type in ('sale', 'fee', 'settlement', 'reserve', 'reserve_release', 'refund', 'chargeback', 'med',
                  'split', 'withdraw', 'withdraw_reversal', 'fine', 'interest', 'discount', 'abatement',
                  'bank_fee'));
`)
)
