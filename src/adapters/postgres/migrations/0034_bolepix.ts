import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Bolepix (issue 21 §3, docs/boleto.md "Bolepix"): a boleto that also carries a due-date PIX charge.
 * - A PIX received for a bolepix's txid finds its transaction (the txid sits in `details.pix` as a PIX's does).
 * - The payment that comes second, by the other rail, is recorded once per rail and reference in
 *   `bolepix_second_payments` and returned: never settled. Its money is the payer's, never the merchant's,
 *   so its postings touch only the gateway's books (`second_payment`, `second_payment_return`).
 * - `pix_received.outcome` gains `returned`: a PIX that found its bolepix already settled, given back.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create index transactions_bolepix_txid on transactions ((details -> 'pix' ->> 'txid')) where method = 'BOLETO';

create table bolepix_second_payments (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  transaction_id uuid not null references transactions (id),
  rail text not null check (rail in ('pix', 'barcode')),
  -- The PIX's end-to-end id; for the barcode, 'barcode' (a bank takes one payment of a slip).
  reference text not null,
  amount bigint not null check (amount > 0),
  paid_at timestamptz not null,
  -- to_return: owed to the payer, not yet given back; returning: asked of the PSP; returned: given back.
  status text not null check (status in ('to_return', 'returning', 'returned')),
  created_at timestamptz not null default now(),
  returned_at timestamptz,
  unique (transaction_id, rail, reference)
);
create index bolepix_second_payments_open on bolepix_second_payments (created_at) where status <> 'returned';

alter table pix_received drop constraint pix_received_outcome_check;
alter table pix_received add constraint pix_received_outcome_check
  check (outcome in ('settled', 'amount_mismatch', 'unknown_charge', 'not_payable', 'returned'));

alter table ledger_postings drop constraint ledger_postings_type_check;
alter table ledger_postings add constraint ledger_postings_type_check
  check (type in ('sale', 'fee', 'settlement', 'reserve', 'reserve_release', 'refund', 'chargeback', 'med',
                  'split', 'withdraw', 'withdraw_reversal', 'fine', 'interest', 'discount', 'abatement',
                  'bank_fee', 'second_payment', 'second_payment_return'));
`)
)
