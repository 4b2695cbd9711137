import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A boleto's payment the bank reports (CNAB 06/17) and the gateway does not apply (docs/boleto.md "Payments
 * the gateway does not apply"): of a transaction that had ended, a second liquidation of a settled title on
 * another day, a payment dated after the last payable day of a title the bank wrote off, or a liquidation of a
 * nosso número that is no title of ours. Each is the payer's money, owed back: recorded once per occurrence —
 * keyed as its bank fee is, nosso número, code and day —, `to_return` until an operator gives it back by hand
 * (`npm run cli -- boleto returned --id ID`). Its tenant and transaction when the title is ours; its postings
 * touch only the gateway's books (`boleto_payment_to_return`, `boleto_payment_returned`).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table boleto_payments_to_return (
  id uuid primary key,
  account_id uuid references accounts (id),
  transaction_id uuid references transactions (id),
  our_number text not null,
  code text not null,
  occurred_on date,
  amount bigint not null check (amount > 0),
  file_number integer not null,
  line integer not null,
  reason text not null,
  status text not null check (status in ('to_return', 'returned')),
  created_at timestamptz not null default now(),
  returned_at timestamptz,
  check ((account_id is null) = (transaction_id is null)),
  check ((status = 'returned') = (returned_at is not null))
);
create unique index boleto_payments_to_return_occurrence
  on boleto_payments_to_return (our_number, code, coalesce(occurred_on, '-infinity'::date));
create index boleto_payments_to_return_open on boleto_payments_to_return (created_at) where status = 'to_return';

alter table ledger_postings drop constraint ledger_postings_type_check;
alter table ledger_postings add constraint ledger_postings_type_check
  check (type in ('sale', 'fee', 'settlement', 'reserve', 'reserve_release', 'refund', 'chargeback', 'med',
                  'split', 'withdraw', 'withdraw_reversal', 'fine', 'interest', 'discount', 'abatement',
                  'bank_fee', 'second_payment', 'second_payment_return', 'boleto_payment_to_return',
                  'boleto_payment_returned'));
`)
)
