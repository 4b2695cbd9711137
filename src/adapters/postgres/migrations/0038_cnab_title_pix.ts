import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A bolepix's title carries its due-date PIX charge's DICT key and txid, `{"key", "txid"}`, registered with
 * the bank in the remessa's segment Y-03 (docs/providers.md "Boleto: banks by CNAB 240"); null for a plain
 * boleto. Kept with the title: the bank learns of both codes by the same file.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`alter table cnab_titles add column pix jsonb;`))
