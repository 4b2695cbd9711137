import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * /public/v1 charges name their buyer instead of an order, carry products, metadata and a comment,
 * and may add installment interest (CONTRACT-v1 §2, §3); each transaction has a hosted checkout page.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table transactions
  add column buyer jsonb,
  add column products jsonb not null default '[]',
  add column comment text,
  add column amount_interest bigint not null default 0 check (amount_interest >= 0);

-- v1 lists filter by the buyer's document (newest first reads transactions_account_created backwards).
create index transactions_buyer_document on transactions (account_id, (buyer ->> 'document'))
  where buyer is not null;

alter table public_documents drop constraint public_documents_kind_check;
alter table public_documents add constraint public_documents_kind_check
  check (kind in ('pix_qr', 'boleto_pdf', 'checkout'));
`)
)
