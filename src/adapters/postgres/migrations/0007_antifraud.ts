import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * CONTRACT-v1 §9: velocity counters of the rules engine, one row per (account, kind, key, window bucket),
 * bumped with `insert … on conflict do update … returning count` so that concurrent charges of one card
 * each see their own count. Keys are keyed SHA-256 digests (never a PAN). A card held for a manual
 * review is vaulted before a customer is known, so a vaulted card's customer becomes optional.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table antifraud_counters (
  account_id uuid not null references accounts (id),
  kind text not null check (kind in ('card', 'document')),
  key text not null,
  bucket bigint not null,
  count integer not null default 1 check (count > 0),
  -- When the bucket's window ends: the cleanup job deletes rows past it.
  expires_at timestamptz not null,
  primary key (account_id, kind, key, bucket)
);
create index antifraud_counters_expires on antifraud_counters (expires_at);

alter table cards alter column customer_id drop not null;
`)
)
