import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Test and live modes (issue 24 §1, docs/decisions.md "Test and live modes"). The tenant is (merchant,
 * mode), and a tenant is an `accounts` row: every table already scoped by `account_id` is scoped by
 * tenant without a change, and so are the ledger and the balances.
 *
 * Every existing row is a merchant's test tenant (`mode` defaults to 'test', `owner_id` null): existing
 * data and keys migrate to test mode untouched. A live tenant is a second row, `mode = 'live'`, whose
 * `owner_id` names the merchant's test row (the one that logs in); one per merchant. It copies the
 * merchant's email for display, so the email's uniqueness now holds among merchants (owner rows) only.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table accounts
  add column mode text not null default 'test' check (mode in ('test', 'live')),
  add column owner_id uuid references accounts (id),
  add constraint accounts_live_has_owner check ((mode = 'live') = (owner_id is not null));
create unique index accounts_one_live_tenant on accounts (owner_id) where owner_id is not null;
drop index accounts_email_key;
create unique index accounts_email_key on accounts (lower(email)) where owner_id is null;
`)
)
