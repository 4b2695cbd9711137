import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The merchant's CPF or CNPJ (normalised: no punctuation, upper case), given at signup. A boleto names
 * the merchant the buyer pays with its document (docs/boleto.md); accounts made before have none, and
 * their boletos name the merchant alone.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
alter table accounts add column document text check (document ~ '^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$');
`)
)
