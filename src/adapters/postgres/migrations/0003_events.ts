import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The event outbox, the account's webhook and its delivery records. */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table events (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  type text not null,
  transaction_id uuid references transactions (id),
  -- The envelope as delivered, frozen at the state change.
  payload jsonb not null,
  created_at timestamptz not null default now()
);
create index events_account_created on events (account_id, created_at);

create table webhooks (
  account_id uuid primary key references accounts (id),
  url text not null,
  secret text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table webhook_deliveries (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  event_id uuid not null references events (id),
  event text not null,
  url text not null,
  status text not null check (status in ('PENDING', 'SUCCESS', 'FAILED')),
  attempts integer not null default 0,
  http_status integer,
  attempted_at timestamptz,
  next_retry_at timestamptz,
  last_error text,
  created_at timestamptz not null default now()
);
create index webhook_deliveries_account on webhook_deliveries (account_id, created_at desc);

-- Liveness of graphile-worker workers: a worker whose heartbeat stops (hard-killed process) has its
-- jobs unlocked by the others within a minute, instead of graphile-worker's four hours.
create table worker_heartbeats (
  worker_id text primary key,
  beat_at timestamptz not null
);
`)
)
