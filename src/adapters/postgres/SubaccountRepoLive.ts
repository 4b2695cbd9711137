import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { SubaccountRecord as Record, subaccountExists } from "../../domain/subaccount.ts"
import { SubaccountRepo } from "../../ports/SubaccountRepo.ts"
import { newestFirstPage } from "./keyset.ts"
import { traced } from "./traced.ts"
import { decodedRows } from "./decodedRows.ts"

const COLUMNS = `id, account_id, name, document, document_type, email, phone, bank_account, status, created_at,
  updated_at`

// Rows come back camelCased (SqlLive), jsonb `bank_account` as stored (the domain's BankAccount); the
// schema checks both. A row that does not decode is a defect of the database, not of the request.
const decodeRows = Schema.decodeUnknown(Schema.Array(Record))

export const SubaccountRepoLive = Layer.effect(
  SubaccountRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const { first } = decodedRows(decodeRows)

    return SubaccountRepo.of(
      traced("SubaccountRepo", {
        // The unique index (account_id, document) decides between concurrent creations: the loser's
        // insert waits for the winner's commit, then inserts nothing, and is told `subaccount_exists`.
        // A row with this very id and document is the same request resumed (its reserved id came back
        // through the Idempotency-Key after a crash between commit and reply): it is returned.
        insert: (accountId, s) =>
          Effect.gen(function* () {
            const inserted = yield* first(sql`
              insert into subaccounts (id, account_id, name, document, document_type, email, phone, bank_account)
              values (${s.id}, ${accountId}, ${s.name}, ${s.document}, ${s.documentType}, ${s.email}, ${s.phone},
                      ${JSON.stringify(s.bankAccount)}::jsonb)
              on conflict do nothing
              returning ${columns}`)
            if (Option.isSome(inserted)) return inserted.value
            const same = yield* first(sql`
              select ${columns} from subaccounts
              where account_id = ${accountId} and id = ${s.id} and document = ${s.document}`)
            if (Option.isSome(same)) return same.value
            return yield* Effect.fail(subaccountExists())
          }),
        find: (accountId, id) =>
          first(sql`select ${columns} from subaccounts where account_id = ${accountId} and id = ${id}`),
        page: (accountId, f, range) => {
          const where = sql.and([
            sql`account_id = ${accountId}`,
            ...(f.document !== undefined ? [sql`document = ${f.document}`] : []),
            ...(f.status !== undefined ? [sql`status = ${f.status}`] : []),
            ...(f.createdFrom !== undefined ? [sql`created_at >= ${f.createdFrom}`] : []),
            ...(f.createdBefore !== undefined ? [sql`created_at < ${f.createdBefore}`] : [])
          ])
          return newestFirstPage(sql, "subaccounts", COLUMNS, where, range, decodeRows)
        }
      })
    )
  })
)
