import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A PIX the PSP credited to the gateway for a charge of ours that the gateway does not apply (`not_payable`: a
 * second payer of a paid charge, or a charge expired or cancelled; `amount_mismatch`: another amount) is the
 * payer's money, owed back (docs/providers.md "The receiver", docs/operations.md "What waits for an operator"):
 * posted on the gateway's books only, under its transaction and tenant, as a boleto payment not applied is
 * (migration 0055) — `pix_payment_to_return` when received, `pix_payment_returned` when an operator marks it
 * handled. Only the posting types are new: the `pix_received` row and its marks are what they were.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table ledger_postings drop constraint ledger_postings_type_check;
alter table ledger_postings add constraint ledger_postings_type_check
  check (type in ('sale', 'fee', 'settlement', 'reserve', 'reserve_release', 'refund', 'chargeback', 'med',
                  'split', 'withdraw', 'withdraw_reversal', 'fine', 'interest', 'discount', 'abatement',
                  'bank_fee', 'second_payment', 'second_payment_return', 'boleto_payment_to_return',
                  'boleto_payment_returned', 'pix_payment_to_return', 'pix_payment_returned'));
`)
)
