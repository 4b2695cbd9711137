import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { Transaction, type PaymentMethod, type TransactionStatus } from "../../domain/transaction.ts"
import { TransactionRepo } from "../../ports/TransactionRepo.ts"

export interface TransactionRow {
  readonly id: string
  readonly orderId: string | null
  readonly method: PaymentMethod
  readonly amount: number
  readonly status: TransactionStatus
  readonly createdAt: Date
  readonly updatedAt: Date
}

export const toTransaction = (row: TransactionRow) =>
  Transaction.make({
    id: row.id,
    orderId: row.orderId,
    method: row.method,
    amount: row.amount,
    status: row.status,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableValidation: true })

export const TransactionRepoLive = Layer.effect(
  TransactionRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return TransactionRepo.of({
      list: (accountId) =>
        sql<TransactionRow>`select * from transactions where account_id = ${accountId} order by created_at, id`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows.map(toTransaction))
        ),
      find: (accountId, id) =>
        sql<TransactionRow>`select * from transactions where account_id = ${accountId} and id = ${id}`.pipe(
          Effect.orDie,
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toTransaction))
        )
    })
  })
)
