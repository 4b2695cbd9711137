import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Accounts, API keys, the shared rate-limit window, customers, orders and transactions. */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table accounts (
  id uuid primary key,
  name text not null,
  email text not null,
  password_hash text not null,
  created_at timestamptz not null default now()
);
create unique index accounts_email_key on accounts (lower(email));

create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  label text not null,
  key_prefix text not null,
  key_last4 text not null,
  key_digest bytea not null unique,
  is_primary boolean not null,
  scopes text[],
  active boolean not null default true,
  rate_limit integer not null check (rate_limit > 0),
  last_used_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index api_keys_one_primary on api_keys (account_id) where is_primary;
create index api_keys_account on api_keys (account_id);

-- Accepted requests of the rolling window, shared by every API process.
create table rate_limit_hits (
  key_id uuid not null,
  at timestamptz not null
);
create index rate_limit_hits_key_at on rate_limit_hits (key_id, at);

-- Exact rolling window: serialises the requests of one key with a transaction-scoped advisory
-- lock, drops hits older than the window and accepts only while fewer than p_limit remain.
-- The database clock is the one clock every API process shares.
create function rate_limit_take(p_key uuid, p_limit integer, p_window interval)
returns table (allowed boolean, remaining integer, reset_ms bigint)
language plpgsql as $$
declare
  v_now timestamptz;
  v_count integer;
  v_oldest timestamptz;
  v_frees timestamptz;
begin
  perform pg_advisory_xact_lock(hashtextextended('rate_limit:' || p_key::text, 0));
  -- Read the clock after the lock, so that hits are stamped in the order they were accepted.
  v_now := clock_timestamp();
  delete from rate_limit_hits where key_id = p_key and at <= v_now - p_window;
  select count(*), min(at) into v_count, v_oldest from rate_limit_hits where key_id = p_key;
  if v_count < p_limit then
    insert into rate_limit_hits (key_id, at) values (p_key, v_now);
    return query select true, p_limit - v_count - 1,
      (extract(epoch from (coalesce(v_oldest, v_now) + p_window - v_now)) * 1000)::bigint;
  else
    -- A slot frees when the hit that keeps the window full falls out of it.
    select at into v_frees from rate_limit_hits where key_id = p_key
      order by at offset (v_count - p_limit) limit 1;
    return query select false, 0,
      greatest(1, (extract(epoch from (v_frees + p_window - v_now)) * 1000)::bigint);
  end if;
end $$;

create table customers (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  name text not null,
  email text not null,
  document text not null,
  phone text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
-- One live customer per CPF and account; a deleted one frees its CPF but keeps its history.
create unique index customers_live_document on customers (account_id, document) where deleted_at is null;
create index customers_account_created on customers (account_id, created_at, id);

create table orders (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  customer_id uuid not null references customers (id),
  amount bigint not null check (amount > 0),
  status text not null check (status in ('PENDING', 'PAID', 'CANCELLED', 'EXPIRED')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index orders_account_created on orders (account_id, created_at, id);

-- The core's transaction: a superset of the /api and /public/v1 words (CONTRACT §9).
create table transactions (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  order_id uuid references orders (id),
  interface text not null default 'v2' check (interface in ('v2', 'v1')),
  method text not null check (method in ('PIX', 'BOLETO', 'CARD')),
  amount bigint not null check (amount > 0),
  refunded_amount bigint not null default 0,
  status text not null check (status in (
    'PENDING', 'PROCESSING', 'ANTIFRAUD', 'CAPTURED', 'PAID', 'DECLINED', 'FAILED', 'CANCELLED',
    'PARTIAL_REFUND', 'REFUNDED', 'PRE_CHARGEBACK', 'CHARGEBACK', 'MED_RECEIVED', 'MED_ANALYSIS', 'MED_REPROVED')),
  installments integer,
  details jsonb not null default '{}',
  decline_code text,
  paid_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (refunded_amount >= 0 and refunded_amount <= amount)
);
create index transactions_account_created on transactions (account_id, created_at, id);
create index transactions_order on transactions (order_id);
`)
)
