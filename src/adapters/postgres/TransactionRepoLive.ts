import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import type { TransactionRecord } from "../../domain/transaction.ts"
import { TransactionRepo } from "../../ports/TransactionRepo.ts"

/** Rows come back camelCased with exactly the record's fields (see COLUMNS). */
export type TransactionRow = TransactionRecord

const COLUMNS =
  "id, order_id, customer_id, method, amount, status, refunded_amount, refund_reserved, installments, details, decline_code, acquirer_reference, paid_at, expires_at, created_at, updated_at"

export const TransactionRepoLive = Layer.effect(
  TransactionRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const one = (rows: ReadonlyArray<TransactionRow>) => Option.fromNullable(rows[0])
    return TransactionRepo.of({
      insert: (accountId, t) =>
        sql<TransactionRow>`
          insert into transactions (id, account_id, order_id, customer_id, method, amount, status, installments, details,
                                    expires_at, card_token, antifraud)
          values (${t.id}, ${accountId}, ${t.orderId}, ${t.customerId}, ${t.method}, ${t.amount}, ${t.status}, ${t.installments},
                  ${JSON.stringify(t.details)}::jsonb, ${t.expiresAt}, ${t.cardToken},
                  ${t.antifraud === undefined || t.antifraud === null ? null : JSON.stringify(t.antifraud)}::jsonb)
          returning ${columns}`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows[0]!)
        ),
      list: (accountId) =>
        sql<TransactionRow>`select ${columns} from transactions where account_id = ${accountId} order by created_at, id`.pipe(
          Effect.orDie
        ),
      find: (accountId, id) =>
        sql<TransactionRow>`select ${columns} from transactions where account_id = ${accountId} and id = ${id}`.pipe(
          Effect.orDie,
          Effect.map(one)
        ),
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
          returning ${columns}`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows[0]!)
        ),
      hasProcessing: (accountId, orderId) =>
        // A charge stuck in PROCESSING (its process died without an idempotent retry) stops
        // blocking the order after two minutes.
        sql`select 1 from transactions where account_id = ${accountId} and order_id = ${orderId} and status = 'PROCESSING'
              and updated_at > now() - interval '2 minutes' limit 1`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows.length > 0)
        ),
      // Keyed by id alone: a timestamp key would lose its microseconds in a JS Date and repeat pages.
      pendingBoletos: (limit, afterId) =>
        sql<{ accountId: string; id: string }>`
          select account_id, id from transactions
          where method = 'BOLETO' and status = 'PENDING'
            ${afterId ? sql`and id > ${afterId}` : sql``}
          order by id limit ${limit}`.pipe(Effect.orDie)
    })
  })
)
