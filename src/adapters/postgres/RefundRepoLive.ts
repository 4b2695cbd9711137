import { SqlClient } from "@effect/sql"
import { traced } from "./traced.ts"
import { UNDECIDED_REFUND_AGE } from "./undecidedRefund.ts"
import { Effect, Layer } from "effect"
import { type PendingCardRefund, type Refund, RefundRepo } from "../../ports/RefundRepo.ts"
import type { AccountId, RefundId, TransactionId } from "../../domain/ids.ts"

type PendingRow = Omit<PendingCardRefund, "amount"> & { readonly amount: string | number }
const pendingCardOf = (row: PendingRow): PendingCardRefund => ({ ...row, amount: Number(row.amount) })

export const RefundRepoLive = Layer.effect(
  RefundRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pendingCardSelect = sql`
      select r.account_id as "accountId", r.id, r.transaction_id as "transactionId", r.amount, t.acquirer,
        t.acquirer_reference as "acquirerReference", r.created_at as "createdAt"
      from refunds r join transactions t on t.id = r.transaction_id and t.account_id = r.account_id
      where r.status = 'PENDING' and t.method = 'CARD'
        and r.created_at < now() - ${sql.literal(UNDECIDED_REFUND_AGE)}`
    return RefundRepo.of(
      traced("RefundRepo", {
        insertPending: (accountId, r) =>
          sql<Refund>`
          insert into refunds (id, account_id, transaction_id, amount, reason, status)
          values (${r.id}, ${accountId}, ${r.transactionId}, ${r.amount}, ${r.reason}, 'PENDING')
          returning id, transaction_id, amount, reason, status, created_at, completed_at`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows[0]!)
          ),
        finish: (accountId, id, status) =>
          sql<Refund>`
          update refunds set status = ${status}, completed_at = now()
          where account_id = ${accountId} and id = ${id}
          returning id, transaction_id, amount, reason, status, created_at, completed_at`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows[0]!)
          ),
        find: (accountId, id) =>
          sql<Refund>`
          select id, transaction_id, amount, reason, status, created_at, completed_at
          from refunds where account_id = ${accountId} and id = ${id}`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows[0])
          ),
        findPendingPix: (id, mode) =>
          sql<{ accountId: AccountId; id: RefundId; transactionId: TransactionId; amount: string | number }>`
          select r.account_id as "accountId", r.id, r.transaction_id as "transactionId", r.amount
          from refunds r join transactions t on t.id = r.transaction_id and t.account_id = r.account_id
          join accounts a on a.id = r.account_id and a.mode = ${mode}
          where r.id = ${id} and r.status = 'PENDING' and t.method = 'PIX'`.pipe(
            Effect.orDie,
            Effect.map((rows) => (rows[0] === undefined ? undefined : { ...rows[0], amount: Number(rows[0].amount) }))
          ),
        pendingCard: (limit) =>
          sql<PendingRow>`${pendingCardSelect} order by r.created_at limit ${limit}`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.map(pendingCardOf))
          ),
        findPendingCard: (id) =>
          sql<PendingRow>`${pendingCardSelect} and r.id = ${id}`.pipe(
            Effect.orDie,
            Effect.map((rows) => (rows[0] === undefined ? undefined : pendingCardOf(rows[0])))
          ),
        pendingPix: (olderThan, limit) =>
          sql<{
            accountId: AccountId
            id: RefundId
            transactionId: TransactionId
            amount: string | number
            txid: string | null
          }>`
          select r.account_id as "accountId", r.id, r.transaction_id as "transactionId", r.amount,
            t.details -> 'pix' ->> 'txid' as txid
          from refunds r join transactions t on t.id = r.transaction_id and t.account_id = r.account_id
          where r.status = 'PENDING' and t.method = 'PIX' and r.created_at < ${olderThan}
          order by r.created_at limit ${limit}`.pipe(
            Effect.orDie,
            Effect.map((rows) => rows.map((r) => ({ ...r, amount: Number(r.amount) })))
          )
      })
    )
  })
)
