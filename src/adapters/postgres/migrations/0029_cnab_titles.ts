import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Boleto through a bank by CNAB 240 files (issue 21 §4, docs/providers.md "Boleto: banks by CNAB 240"):
 * - `cnab_titles`: each boleto registered locally (nosso número, barcode) and queued for the next remessa,
 *   with the terms it registered; scoped by account. Its state follows the bank's answers.
 * - `cnab_counters`: the remessa NSA, taken in the transaction that marks the file's titles sent, so a
 *   number is never reused, and never skipped, even across crashes (a row lock, not a sequence).
 * - `cnab_remessas`: each cut file with its content, written to the directory after its commit (temp and
 *   rename) and written again on the next cycle if the process died before the rename.
 * - `cnab_retornos`: each retorno received, by its NSA and its SHA-256: processed or held (out of
 *   sequence), with what its ingestion reported.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create sequence cnab_our_number;

create table cnab_titles (
  account_id uuid not null references accounts (id),
  transaction_id uuid not null,
  our_number text not null unique,
  sequence bigint not null,
  amount bigint not null check (amount > 0),
  due_date date not null,
  issued_on date not null,
  payer_name text not null,
  payer_document text not null,
  terms jsonb,
  write_off_days int not null,
  status text not null default 'queued'
    check (status in ('queued', 'sent', 'registered', 'rejected', 'paid', 'written_off')),
  remessa int,
  reasons text[] not null default '{}',
  paid_amount bigint,
  credit_on date,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (account_id, transaction_id)
);
-- A retorno names the title by our transaction id (uso da empresa): the sweep over every account finds it.
create unique index cnab_titles_transaction on cnab_titles (transaction_id);
create index cnab_titles_queued on cnab_titles (created_at) where status = 'queued';

create table cnab_counters (
  name text primary key,
  value int not null
);
insert into cnab_counters (name, value) values ('remessa', 0);

create table cnab_remessas (
  file_number int primary key,
  file_name text not null,
  content text not null,
  titles int not null,
  written_at timestamptz,
  created_at timestamptz not null default now()
);

create table cnab_retornos (
  file_number int primary key,
  digest text not null,
  content text not null,
  status text not null check (status in ('held', 'processed')),
  source text not null,
  report jsonb,
  received_at timestamptz not null default now(),
  processed_at timestamptz
);
`)
)
