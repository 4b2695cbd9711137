import { SqlClient } from "@effect/sql"
import { KEYSET_AT, listWhere, keysetStream, seekAfter } from "./keyset.ts"
import { CUSTOMER_COLUMNS, type CustomerRow, toCustomer } from "./customerRow.ts"
import { readAheadOr } from "./readAhead.ts"
import { traced } from "./traced.ts"
import { Effect, Layer, Option } from "effect"
import { CustomerRepo } from "../../ports/CustomerRepo.ts"

const first = (rows: ReadonlyArray<CustomerRow>) => Option.map(Option.fromNullable(rows[0]), toCustomer)

export const CustomerRepoLive = Layer.effect(
  CustomerRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(CUSTOMER_COLUMNS)
    const live = (accountId: string, id: string) => sql`account_id = ${accountId} and id = ${id} and deleted_at is null`

    return CustomerRepo.of(
      traced("CustomerRepo", {
        // The partial unique index decides the race between two creations of one CPF; the loser reads
        // the winner's row. Looping covers the tiny window where the winner is deleted in between.
        insertOrGetByDocument: (accountId, customer) =>
          Effect.gen(function* () {
            for (;;) {
              const inserted = yield* sql<CustomerRow>`
              insert into customers (id, account_id, name, email, document, phone)
              values (${customer.id}, ${accountId}, ${customer.name}, ${customer.email}, ${customer.document},
                ${customer.phone})
              on conflict (account_id, document) where deleted_at is null do nothing
              returning ${columns}`
              if (inserted[0]) return { customer: toCustomer(inserted[0]), created: true }
              const existing = yield* sql<CustomerRow>`
              select ${columns} from customers
              where account_id = ${accountId} and document = ${customer.document} and deleted_at is null`
              if (existing[0]) return { customer: toCustomer(existing[0]), created: false }
            }
          }).pipe(Effect.orDie),
        // Newest first, ties by id (docs/api.md "Lists"): keyset pages on the index (account_id, created_at,
        // id); deleted customers are skipped.
        stream: (accountId, filter = {}) =>
          keysetStream(
            (after, limit) => sql`
              select ${columns}, ${sql.literal(KEYSET_AT)} from customers
              where account_id = ${accountId} and deleted_at is null
                ${listWhere(sql, filter)}
                ${seekAfter(sql, Option.getOrUndefined(after), "desc", "uuid")}
              order by created_at desc, id desc limit ${limit}`,
            (rows) => Effect.sync(() => rows.map(toCustomer))
          ),
        // The read the admission made ahead in its round trip serves, once (readAhead.ts).
        find: (accountId, id) =>
          readAheadOr("customer", accountId, id, () =>
            sql<CustomerRow>`select ${columns} from customers where ${live(accountId, id)}`.pipe(
              Effect.orDie,
              Effect.map(first)
            )
          ),
        update: (accountId, id, changes) =>
          sql<CustomerRow>`
          update customers set
            name = coalesce(${changes.name ?? null}, name),
            email = coalesce(${changes.email ?? null}, email),
            phone = coalesce(${changes.phone ?? null}, phone),
            updated_at = now()
          where ${live(accountId, id)}
          returning ${columns}`.pipe(Effect.orDie, Effect.map(first)),
        // Two statements in one transaction: the update takes the customer's row lock (waiting for a card
        // being stored for it: CardVaultLive `store` reads the customer `for share`), and the delete then
        // reads with a snapshot of its own, which sees that card. A card a charge in review (ANTIFRAUD) names
        // stays for its approval; the other saved cards leave, unlinked from their charges (`card_token`
        // null) in the same statement, as `CardVault.discard` does (PCI DSS 3.1).
        softDelete: (accountId, id) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                const deleted = yield* sql`update customers set deleted_at = now() where ${live(accountId, id)}
                  returning id`
                if (deleted.length === 0) return false
                yield* sql`
                with discarded as (
                  delete from cards c
                  where c.account_id = ${accountId} and c.customer_id = ${id}
                    and not exists (
                      select 1 from transactions t
                      where t.card_token = c.token and t.account_id = ${accountId} and t.status = 'ANTIFRAUD'
                    )
                  returning c.token
                )
                update transactions set card_token = null
                where account_id = ${accountId} and card_token in (select token from discarded)`
                return true
              })
            )
            .pipe(Effect.orDie)
      })
    )
  })
)
