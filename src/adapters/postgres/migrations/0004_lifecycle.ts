import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * One core for two interfaces: a transaction remembers the interface that created it (its events
 * speak that interface's words), what the buyer is charged (`amount_total`, which installment
 * interest raises above `amount`), and events keep a neutral snapshot instead of a frozen v2 body.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table transactions
  add column origin text not null default 'v2' check (origin in ('v2', 'v1')),
  add column amount_total bigint;
update transactions set amount_total = amount;
-- A transaction without installment interest is charged its amount.
create function transactions_default_amount_total() returns trigger language plpgsql as $$
begin
  new.amount_total := coalesce(new.amount_total, new.amount);
  return new;
end $$;
create trigger transactions_default_amount_total before insert on transactions
  for each row execute function transactions_default_amount_total();

alter table transactions
  alter column amount_total set not null,
  drop constraint transactions_refunds_within_amount,
  add constraint transactions_refunds_within_total check (refunded_amount + refund_reserved <= amount_total);

-- The reconciliation job looks for card charges whose process died waiting for the acquirer.
create index transactions_processing on transactions (updated_at) where status = 'PROCESSING';

alter table events
  add column kind text,
  add column origin text,
  add column snapshot jsonb,
  alter column payload drop not null;
`)
)
