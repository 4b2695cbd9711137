import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { WithdrawalRecord } from "../../domain/withdrawal.ts"
import { WithdrawalRepo } from "../../ports/WithdrawalRepo.ts"
import { newestFirstPage } from "./keyset.ts"
import { traced } from "./traced.ts"
import { decodedRows } from "./decodedRows.ts"

const COLUMNS =
  "id, account_id, subaccount_id, amount, status, bank_account, failure_reason, paid_at, created_at, updated_at"
const decodeRows = Schema.decodeUnknown(Schema.Array(WithdrawalRecord))

export const WithdrawalRepoLive = Layer.effect(
  WithdrawalRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const { rows, first } = decodedRows(decodeRows)
    return WithdrawalRepo.of(
      traced("WithdrawalRepo", {
        insert: (accountId, w) =>
          Effect.map(
            rows(sql`
              insert into withdrawals (id, account_id, subaccount_id, amount, status, bank_account)
              values (${w.id}, ${accountId}, ${w.subaccountId}, ${w.amount}, 'pending',
                      ${JSON.stringify(w.bankAccount)}::jsonb)
              returning ${columns}`),
            (r) => r[0]!
          ),
        find: (accountId, id) =>
          first(sql`select ${columns} from withdrawals where account_id = ${accountId} and id = ${id}`),
        findForUpdate: (accountId, id) =>
          first(sql`select ${columns} from withdrawals where account_id = ${accountId} and id = ${id} for update`),
        finish: (accountId, id, status, at, failureReason) =>
          Effect.map(
            rows(sql`
              update withdrawals set status = ${status}, failure_reason = ${failureReason},
                paid_at = ${status === "paid" ? at : null}, updated_at = ${at}
              where account_id = ${accountId} and id = ${id}
              returning ${columns}`),
            (r) => r[0]!
          ),
        page: (accountId, filter, range) => {
          const where = sql.and([
            sql`account_id = ${accountId}`,
            ...(filter.subaccountId === undefined
              ? []
              : filter.subaccountId === null
                ? [sql`subaccount_id is null`]
                : [sql`subaccount_id = ${filter.subaccountId}`])
          ])
          // Newest first, ties by id (docs/api.md "Lists").
          return newestFirstPage(sql, "withdrawals", COLUMNS, where, range, decodeRows)
        }
      })
    )
  })
)
