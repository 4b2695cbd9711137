import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Events and webhook operations (issue 20 §2, docs/webhooks.md):
 * - the account's events newest first in keyset pages: (account_id, created_at desc, id desc);
 * - a delivery keeps its last attempt's request (headers as sent, the signature included, never the
 *   secret; the body) and response (status, first 4 KB of the body, latency; the error is last_error);
 * - secret rotation: the previous secret keeps signing, beside the new one, until its overlap ends.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create index events_account_newest on events (account_id, created_at desc, id desc);

alter table webhook_deliveries
  add column request_headers jsonb,
  add column request_body text,
  add column response_body text,
  add column latency_ms integer;

alter table webhooks
  add column previous_secret text,
  add column previous_secret_expires_at timestamptz;
`)
)
