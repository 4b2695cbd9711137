import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every transaction has its hosted page (CONTRACT-v1 §2 `checkout_url`, §6). A card capture used to
 * replace the transaction's `details` with the card's, dropping the checkout token, so approved cards
 * answered `checkout_url: null` while their page row still existed (issue 19 item 6); the token is put
 * back from that row. Transactions older than hosted pages (migration 0005) get one now: 32 bytes of
 * PostgreSQL's strong random source (two v4 UUIDs, 244 random bits) in base64url, 43 characters like
 * the tokens the application makes.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
update transactions t set details = t.details || jsonb_build_object('checkoutToken', d.token)
from public_documents d
where d.transaction_id = t.id and d.kind = 'checkout' and not (t.details ? 'checkoutToken');

create temporary table minted_checkout_tokens on commit drop as
select id, translate(encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'),
                            'base64'), '+/=', '-_') as token
from transactions where not (details ? 'checkoutToken');
insert into public_documents (token, transaction_id, kind) select token, id, 'checkout' from minted_checkout_tokens;
update transactions t set details = t.details || jsonb_build_object('checkoutToken', m.token)
from minted_checkout_tokens m where m.id = t.id;
`)
)
