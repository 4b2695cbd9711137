import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every PIX payment the PSP reported (by notification or by the reconciliation listing), once per
 * end-to-end id: the key that makes a duplicated, re-sent or twice-seen payment settle once
 * (docs/providers.md "PIX: the Banco Central's API Pix"). A payment that did not settle its charge (amount
 * differs, unknown txid, charge no longer payable) stays here with its outcome, for operators
 * (`npm run cli -- pix exceptions`), never silently dropped.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table pix_received (
  end_to_end_id text primary key,
  txid text,
  amount bigint not null,
  paid_at timestamptz not null,
  source text not null check (source in ('webhook', 'reconciliation')),
  outcome text not null check (outcome in ('settled', 'amount_mismatch', 'unknown_charge', 'not_payable')),
  account_id uuid references accounts (id),
  transaction_id uuid references transactions (id),
  received_at timestamptz not null default now()
);
create index pix_received_exceptions on pix_received (received_at) where outcome <> 'settled';
-- A notification names the charge by txid only: found across accounts (docs/architecture.md, the sweeps).
create index transactions_pix_txid on transactions ((details -> 'pix' ->> 'txid')) where method = 'PIX';
`)
)
