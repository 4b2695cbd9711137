import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The charges naming a vaulted card (`transactions.card_token`, which references `cards`): a card held for a
 * manual review is deleted once the review is decided (`CardVault.discard`, docs/antifraud.md "Manual review"),
 * which unlinks its charge and has the foreign key check that no other charge names it. Without an index both
 * read every transaction. Only the charges paid with a card token or held for a review are indexed.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`create index transactions_card_token on transactions (card_token) where card_token is not null`)
)
