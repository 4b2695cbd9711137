import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The books (CONTRACT-v1 §7, README "Money"). The database itself keeps them honest:
 * - postings and entries are append-only (UPDATE, DELETE and TRUNCATE raise);
 * - every entry sums to zero, checked when its transaction commits (a deferred constraint trigger);
 * - a party's balance row is moved only by the trigger that inserts its postings, so it always equals
 *   their sum and is read in O(1). The gateway's own books (party 'system') are not kept as rows:
 *   every sale touches them, and one hot row per account would serialise unrelated sales.
 * - an entry's key is unique per account, so a retried job or request cannot post twice.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
create table ledger_entries (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  key text not null,
  transaction_id uuid,
  withdrawal_id uuid,
  created_at timestamptz not null default now(),
  unique (account_id, key)
);

create table ledger_postings (
  id bigint generated always as identity primary key,
  entry_id uuid not null references ledger_entries (id),
  account_id uuid not null,
  party text not null,
  book text not null check (book in ('available', 'pending', 'reserved', 'acquirer', 'payers', 'fees', 'payouts')),
  type text not null check (type in ('sale', 'fee', 'settlement', 'reserve', 'reserve_release', 'refund',
                                     'chargeback', 'med', 'split', 'withdraw', 'withdraw_reversal')),
  amount bigint not null check (amount <> 0),
  transaction_id uuid,
  withdrawal_id uuid,
  description text not null,
  created_at timestamptz not null default now(),
  check ((party = 'system') = (book in ('acquirer', 'payers', 'fees', 'payouts')))
);
-- Financials: one party's postings in a date range, oldest first.
create index ledger_postings_statement on ledger_postings (account_id, party, created_at, id);
create index ledger_postings_entry on ledger_postings (entry_id);

create table ledger_balances (
  account_id uuid not null references accounts (id),
  party text not null,
  book text not null check (book in ('available', 'pending', 'reserved')),
  amount bigint not null default 0,
  updated_at timestamptz,
  primary key (account_id, party, book)
);

create function ledger_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'the ledger is append-only: % on % is not allowed', tg_op, tg_table_name
    using errcode = 'restrict_violation';
end $$;
create trigger ledger_postings_append_only before update or delete on ledger_postings
  for each row execute function ledger_append_only();
create trigger ledger_postings_no_truncate before truncate on ledger_postings
  for each statement execute function ledger_append_only();
create trigger ledger_entries_append_only before update or delete on ledger_entries
  for each row execute function ledger_append_only();
create trigger ledger_entries_no_truncate before truncate on ledger_entries
  for each statement execute function ledger_append_only();

create function ledger_apply_posting() returns trigger language plpgsql as $$
begin
  if new.party <> 'system' then
    insert into ledger_balances as b (account_id, party, book, amount, updated_at)
    values (new.account_id, new.party, new.book, new.amount, new.created_at)
    on conflict (account_id, party, book)
    do update set amount = b.amount + excluded.amount, updated_at = excluded.updated_at;
  end if;
  return null;
end $$;
create trigger ledger_postings_apply after insert on ledger_postings
  for each row execute function ledger_apply_posting();

create function ledger_entry_balanced() returns trigger language plpgsql as $$
declare total numeric;
begin
  select coalesce(sum(amount), 0) into total from ledger_postings where entry_id = new.entry_id;
  if total <> 0 then
    raise exception 'ledger entry % does not balance (sum %)', new.entry_id, total
      using errcode = 'check_violation';
  end if;
  return null;
end $$;
create constraint trigger ledger_postings_balanced after insert on ledger_postings
  deferrable initially deferred for each row execute function ledger_entry_balanced();

-- Money of a sale not yet available: its receivables (one per installment and party) and its reserve.
create table receivables (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  party text not null,
  transaction_id uuid not null references transactions (id),
  balance text not null check (balance in ('pending', 'reserved')),
  installment int not null,
  amount bigint not null check (amount >= 0),
  available_at timestamptz not null,
  settled_at timestamptz,
  created_at timestamptz not null default now()
);
create index receivables_transaction on receivables (account_id, transaction_id);
-- Settlement lag: the oldest receivable still due.
create index receivables_due on receivables (available_at) where settled_at is null;

-- Money a refund or dispute took, and from where, so that it can be put back where it came from.
create table ledger_holds (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  transaction_id uuid not null references transactions (id),
  tag text not null,
  party text not null,
  source text not null check (source in ('receivable', 'available')),
  receivable_id uuid references receivables (id),
  amount bigint not null check (amount > 0),
  released_at timestamptz,
  created_at timestamptz not null default now()
);
create index ledger_holds_tag on ledger_holds (account_id, transaction_id, tag);

create table withdrawals (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  subaccount_id uuid,
  amount bigint not null check (amount > 0),
  status text not null check (status in ('pending', 'paid', 'failed')),
  bank_account jsonb not null,
  failure_reason text,
  paid_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index withdrawals_account_created on withdrawals (account_id, created_at, id);

-- Split rules as the merchant sent them, with each recipient's share in centavos (CONTRACT-v1 §8).
alter table transactions add column split jsonb not null default '[]';
-- The fee fixed at creation (FEE_* then in force): refunds return it in proportion even if the
-- configuration changed since.
alter table transactions add column fee bigint not null default 0 check (fee >= 0);
`)
)
