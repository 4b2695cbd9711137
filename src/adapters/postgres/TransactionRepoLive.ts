import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import type { PaymentMethod, TransactionDetails, TransactionRecord, TransactionStatus } from "../../domain/transaction.ts"
import { TransactionRepo } from "../../ports/TransactionRepo.ts"

export interface TransactionRow {
  readonly id: string
  readonly orderId: string | null
  readonly customerId: string | null
  readonly method: PaymentMethod
  readonly amount: number
  readonly status: TransactionStatus
  readonly refundedAmount: number
  readonly refundReserved: number
  readonly installments: number | null
  readonly details: TransactionDetails
  readonly declineCode: string | null
  readonly acquirerReference: string | null
  readonly paidAt: Date | null
  readonly expiresAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export const toRecord = (row: TransactionRow): TransactionRecord => ({
  id: row.id,
  orderId: row.orderId,
  customerId: row.customerId,
  method: row.method,
  amount: row.amount,
  status: row.status,
  refundedAmount: row.refundedAmount,
  refundReserved: row.refundReserved,
  installments: row.installments,
  details: row.details,
  declineCode: row.declineCode,
  acquirerReference: row.acquirerReference,
  paidAt: row.paidAt,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

const COLUMNS = "id, order_id, customer_id, method, amount, status, refunded_amount, refund_reserved, installments, details, decline_code, acquirer_reference, paid_at, expires_at, created_at, updated_at"

export const TransactionRepoLive = Layer.effect(
  TransactionRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const one = (rows: ReadonlyArray<TransactionRow>) => Option.map(Option.fromNullable(rows[0]), toRecord)
    return TransactionRepo.of({
      insert: (accountId, t) =>
        sql<TransactionRow>`
          insert into transactions (id, account_id, order_id, customer_id, method, amount, status, installments, details,
                                    expires_at, card_token, antifraud)
          values (${t.id}, ${accountId}, ${t.orderId}, ${t.customerId}, ${t.method}, ${t.amount}, ${t.status}, ${t.installments},
                  ${JSON.stringify(t.details)}::jsonb, ${t.expiresAt}, ${t.cardToken},
                  ${t.antifraud === undefined || t.antifraud === null ? null : JSON.stringify(t.antifraud)}::jsonb)
          returning ${columns}`.pipe(Effect.orDie, Effect.map((rows) => toRecord(rows[0]!))),
      list: (accountId) =>
        sql<TransactionRow>`select ${columns} from transactions where account_id = ${accountId} order by created_at, id`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows.map(toRecord))
        ),
      find: (accountId, id) =>
        sql<TransactionRow>`select ${columns} from transactions where account_id = ${accountId} and id = ${id}`.pipe(Effect.orDie, Effect.map(one)),
      findForUpdate: (accountId, id) =>
        sql<TransactionRow>`select ${columns} from transactions where account_id = ${accountId} and id = ${id} for update`.pipe(
          Effect.orDie,
          Effect.map(one)
        ),
      update: (accountId, id, c) =>
        sql<TransactionRow>`
          update transactions set
            status = coalesce(${c.status ?? null}, status),
            paid_at = coalesce(${c.paidAt ?? null}, paid_at),
            refunded_amount = coalesce(${c.refundedAmount ?? null}, refunded_amount),
            refund_reserved = coalesce(${c.refundReserved ?? null}, refund_reserved),
            decline_code = coalesce(${c.declineCode ?? null}, decline_code),
            acquirer_reference = coalesce(${c.acquirerReference ?? null}, acquirer_reference),
            details = coalesce(${c.details === undefined ? null : JSON.stringify(c.details)}::jsonb, details),
            updated_at = now()
          where account_id = ${accountId} and id = ${id}
          returning ${columns}`.pipe(Effect.orDie, Effect.map((rows) => toRecord(rows[0]!))),
      hasProcessing: (accountId, orderId) =>
        // A charge stuck in PROCESSING (its process died without an idempotent retry) stops
        // blocking the order after two minutes.
        sql`select 1 from transactions where account_id = ${accountId} and order_id = ${orderId} and status = 'PROCESSING'
              and updated_at > now() - interval '2 minutes' limit 1`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows.length > 0)
        ),
      pendingBoletos: (limit) =>
        sql<{ accountId: string; id: string }>`
          select account_id, id from transactions where method = 'BOLETO' and status = 'PENDING'
          order by created_at limit ${limit}`.pipe(Effect.orDie)
    })
  })
)
