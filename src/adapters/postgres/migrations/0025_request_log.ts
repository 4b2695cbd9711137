import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The request log (issue 20 §2, docs/webhooks.md "Request log"): one row per API-key request, written in
 * batches off the request path (RequestLogLive), kept REQUEST_LOG_RETENTION_DAYS (default 7) and purged by
 * the housekeeping job. Bodies are stored redacted (src/http/shared/redact.ts), never a card number, CVV,
 * token or secret.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table request_log (
  id bigint generated always as identity primary key,
  account_id uuid not null references accounts (id),
  key_id uuid,
  method text not null,
  path text not null,
  status integer not null,
  latency_ms integer not null,
  request_id text not null,
  idempotency_key text,
  body text,
  created_at timestamptz not null default now()
);
create index request_log_account_newest on request_log (account_id, created_at desc, id desc);
create index request_log_created on request_log (created_at);
`)
)
