import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Payment links (issue 20 §4, docs/payment-links.md). `uses` counts the transactions created through a
 * link; the visit's conditional UPDATE (PaymentLinkRepoLive.takeUse) and the check below keep it within
 * `max_uses` whatever the concurrency. `payment_link_transactions` names each visit's transaction.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table payment_links (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  name text not null,
  description text,
  amount bigint check (amount > 0),
  min_amount bigint check (min_amount > 0),
  max_amount bigint check (max_amount > 0),
  items jsonb not null default '[]',
  methods text[] not null check (cardinality(methods) > 0 and methods <@ array['CARD', 'PIX', 'BOLETO']),
  max_installments integer not null default 1 check (max_installments >= 1),
  expires_at timestamptz,
  max_uses integer check (max_uses > 0),
  uses integer not null default 0,
  active boolean not null default true,
  metadata jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (max_uses is null or uses <= max_uses)
);
create index payment_links_account_created on payment_links (account_id, created_at, id);

create table payment_link_transactions (
  transaction_id uuid primary key references transactions (id),
  payment_link_id uuid not null references payment_links (id),
  account_id uuid not null references accounts (id),
  max_installments integer not null,
  created_at timestamptz not null default now()
);
create index payment_link_transactions_link on payment_link_transactions (payment_link_id, transaction_id);
`)
)
