import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Card vault, refunds, idempotency records, public document tokens, the sandbox bank's ledger. */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table cards (
  token text primary key,
  account_id uuid not null references accounts (id),
  customer_id uuid not null references customers (id),
  brand text not null,
  last4 text not null check (last4 ~ '^[0-9]{4}$'),
  exp_month integer not null check (exp_month between 1 and 12),
  exp_year integer not null,
  holder_name text not null,
  -- AES-256-GCM of the PAN; the token and account are its associated data, so a ciphertext moved
  -- to another row does not decrypt.
  pan_ciphertext bytea not null,
  pan_iv bytea not null,
  pan_tag bytea not null,
  created_at timestamptz not null default now()
);
create index cards_account_customer on cards (account_id, customer_id);

alter table transactions
  add column customer_id uuid references customers (id),
  add column card_token text references cards (token),
  add column expires_at timestamptz,
  add column acquirer_reference text,
  add column antifraud jsonb,
  add column metadata jsonb,
  -- Refunds asked of the acquirer or PSP and not yet answered; counted against the balance so that
  -- concurrent refunds cannot exceed the amount, but not yet in refunded_amount.
  add column refund_reserved bigint not null default 0 check (refund_reserved >= 0),
  add constraint transactions_refunds_within_amount check (refunded_amount + refund_reserved <= amount);

-- The boleto confirmation job pages through pending slips of every account.
create index transactions_pending_boletos on transactions (id) where method = 'BOLETO' and status = 'PENDING';

create table refunds (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  transaction_id uuid not null references transactions (id),
  amount bigint not null check (amount > 0),
  reason text,
  -- PENDING while the acquirer or PSP is asked (its amount is in the transaction's refund_reserved).
  status text not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED')),
  created_at timestamptz not null default now(),
  completed_at timestamptz
);
create index refunds_transaction on refunds (transaction_id);

create table idempotency_keys (
  account_id uuid not null references accounts (id),
  key text not null,
  fingerprint text not null,
  -- The id the request's resource gets, reserved up front so that a retry after a crash reuses
  -- it (and so the acquirer's idempotency key).
  resource_id uuid not null,
  locked_until timestamptz,
  response_status integer,
  response_body text,
  created_at timestamptz not null default now(),
  primary key (account_id, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);

-- Unguessable tokens behind qrCodeUrl and pdfUrl (a buyer's browser opens them without a key).
create table public_documents (
  token text primary key,
  transaction_id uuid not null references transactions (id),
  kind text not null check (kind in ('pix_qr', 'boleto_pdf'))
);
create index public_documents_transaction on public_documents (transaction_id);

-- The sandbox bank's record of slips paid by buyers (what a real bank's settlement file says).
create table sandbox_boleto_payments (
  transaction_id uuid primary key,
  amount bigint not null,
  paid_at timestamptz not null default now()
);
`)
)
