import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Subaccounts, the recipients of split payments (CONTRACT-v1 §8). One document per account: the unique
 * index decides between two concurrent creations of one document (one 201, one 409).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table subaccounts (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  name text not null,
  document text not null,
  document_type text not null check (document_type in ('cpf', 'cnpj')),
  email text not null,
  phone text not null,
  -- The domain's BankAccount as is (camelCase keys), decoded by its schema on every read.
  bank_account jsonb not null,
  status text not null default 'active' check (status in ('active')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Also serves the list's document filter.
create unique index subaccounts_account_document on subaccounts (account_id, document);
-- Lists read newest first (backwards), with or without the status filter.
create index subaccounts_account_created on subaccounts (account_id, created_at, id);
create index subaccounts_account_status_created on subaccounts (account_id, status, created_at, id);
`)
)
