import { AccountId, TransactionId } from "../../domain/ids.ts"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { AntifraudAnalysis } from "../../domain/antifraud.ts"
import { TransactionRecord, TransactionStatus, TransactionSummary } from "../../domain/transaction.ts"
import { type NewTransaction, type TransactionChanges, TransactionRepo } from "../../ports/TransactionRepo.ts"
import { KEYSET_AT, listWhere, keysetPage, keysetStream, pageBounds, seekAfter } from "./keyset.ts"
import { withSpan } from "../../spans.ts"
import { deferWrite, inBatch } from "./deferred.ts"
import { readAheadOr } from "./readAhead.ts"
import { COLUMNS } from "./transactionRow.ts"
import { decodedRows } from "./decodedRows.ts"

const encodeAnalysis = Schema.encodeSync(AntifraudAnalysis)
const analysis = (value: AntifraudAnalysis | null | undefined) =>
  value === null || value === undefined ? null : JSON.stringify(encodeAnalysis(value))

/** The split a change sets: the buyer's plan, or what a payment below its fee and splits charges. */
const splitChange = (c: TransactionChanges) => json(c.plan?.split ?? c.charged?.split)
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value))

// Rows come back camelCased (SqlLive); the schema checks them, jsonb `details` included. A row that
// does not decode is a defect of the database, not of the request.
const decodeRows = Schema.decodeUnknown(Schema.Array(TransactionRecord))

const decodeSummaries = Schema.decodeUnknown(Schema.Array(TransactionSummary))

/** What a value stored as jsonb reads back as (its key order aside). */
const stored = (value: unknown) => (value === null || value === undefined ? null : JSON.parse(JSON.stringify(value)))

/**
 * The row `insert … returning` gives for `t` created at `at`, without asking: the columns it does not
 * set take their defaults. Decoded by the same schema as a row read back.
 */
const rowOf = (t: NewTransaction, at: Date) => ({
  id: t.id,
  origin: t.origin,
  orderId: t.orderId,
  customerId: t.customerId,
  method: t.method,
  amount: t.amount,
  amountTotal: t.amountTotal,
  amountInterest: t.amountInterest,
  buyer: stored(t.buyer),
  products: stored(t.products),
  metadata: stored(t.metadata),
  comment: t.comment,
  split: stored(t.split),
  fee: t.fee,
  status: t.status,
  refundedAmount: 0,
  refundReserved: 0,
  installments: t.installments,
  details: stored(t.details),
  declineCode: t.declineCode ?? null,
  acquirerReference: null,
  acquirer: null,
  cardToken: t.cardToken,
  antifraud: t.antifraud === null ? null : stored(encodeAnalysis(t.antifraud)),
  paidAt: null,
  expiresAt: t.expiresAt,
  createdAt: at,
  updatedAt: at
})

const Owned = Schema.Array(Schema.Struct({ accountId: AccountId, id: TransactionId }))

/**
 * A bolepix settled by its PIX is still asked about while its slip is payable: the bank may report the
 * barcode paid too, a second payment to record and return (docs/boleto.md "Bolepix").
 */
// Asked of the bank while a barcode payment of its last payable day may still be reported: BOLETO_REPORT_DAYS
// (at most 10 business days: three weeks cover them, holidays included) after `expires_at` (docs/boleto.md
// "When a boleto expires").
const BOLEPIX_PAID_BY_PIX = `status <> 'PENDING' and details -> 'pix' is not null
  and details -> 'payment' ->> 'rail' = 'pix' and expires_at > now() - interval '21 days'
  and not exists (select 1 from bolepix_second_payments s where s.transaction_id = transactions.id
                  and s.rail = 'barcode')`

const StatusRows = Schema.Array(Schema.Struct({ status: TransactionStatus }))

export const TransactionRepoLive = Layer.effect(
  TransactionRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const { rows, first } = decodedRows(decodeRows)
    const only = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) => Effect.map(rows(query), (r) => r[0]!)
    /** The insert of `t`; created and updated at `at`, or now() when null. */
    const insertOf = (accountId: AccountId, t: NewTransaction, at: Date | null) => sql`
      insert into transactions (id, account_id, origin, order_id, customer_id, method, amount, amount_total,
                                amount_interest, buyer, products, metadata, comment, split, fee, status,
                                installments, details, expires_at, card_token, antifraud, decline_code,
                                created_at, updated_at)
      values (${t.id}, ${accountId}, ${t.origin}, ${t.orderId}, ${t.customerId}, ${t.method}, ${t.amount},
              ${t.amountTotal}, ${t.amountInterest}, ${json(t.buyer)}::jsonb, ${json(t.products)}::jsonb,
              ${json(t.metadata)}::jsonb, ${t.comment}, ${JSON.stringify(t.split)}::jsonb, ${t.fee}, ${t.status},
              ${t.installments},
              ${JSON.stringify(t.details)}::jsonb, ${t.expiresAt}, ${t.cardToken},
              ${analysis(t.antifraud)}::jsonb, ${t.declineCode ?? null},
              coalesce(${at}::timestamptz, now()), coalesce(${at}::timestamptz, now()))`

    return TransactionRepo.of({
      insert: (accountId, t) =>
        Effect.flatMap(inBatch, (batching) =>
          batching
            ? // In a batch (Transactional.batch) the row is written with the batch's other writes, and the
              // record is the row as written: its times are the process clock's, given, not now()'s.
              Effect.gen(function* () {
                const at = new Date(yield* Clock.currentTimeMillis)
                yield* deferWrite(sql, (as) => ({ ctes: [[as("transaction"), insertOf(accountId, t, at)]] }))
                return yield* only(Effect.succeed([rowOf(t, at)]))
              })
            : only(sql`${insertOf(accountId, t, null)} returning ${columns}`)
        ).pipe(withSpan("TransactionRepo.insert")),
      // Newest first, ties by id (docs/api.md "Lists"): keyset pages on the index (account_id, created_at, id).
      stream: (accountId, filter = {}) =>
        keysetStream(
          (after, limit) => sql`
            select id, order_id, method, amount_total, status, created_at, updated_at, ${sql.literal(KEYSET_AT)}
            from transactions
            where account_id = ${accountId}
              ${listWhere(sql, filter)}
              ${seekAfter(sql, Option.getOrUndefined(after), "desc", "uuid")}
            order by created_at desc, id desc limit ${limit}`,
          (found) => Effect.orDie(decodeSummaries(found))
        ),
      // The read the admission made ahead in its round trip serves, once (readAhead.ts).
      find: (accountId, id) =>
        readAheadOr("transaction", accountId, id, () =>
          first(sql`select ${columns} from transactions where account_id = ${accountId} and id = ${id}`)
        ).pipe(withSpan("TransactionRepo.find")),
      findForUpdate: (accountId, id) =>
        first(sql`
          select ${columns} from transactions
          where account_id = ${accountId} and id = ${id}
          for update`).pipe(withSpan("TransactionRepo.findForUpdate")),
      update: (accountId, id, c) =>
        only(sql`
          update transactions set
            status = coalesce(${c.status ?? null}, status),
            paid_at = coalesce(${c.paidAt ?? null}, paid_at),
            refunded_amount = coalesce(${c.refundedAmount ?? null}, refunded_amount),
            refund_reserved = coalesce(${c.refundReserved ?? null}, refund_reserved),
            decline_code = coalesce(${c.declineCode ?? null}, decline_code),
            acquirer_reference = coalesce(${c.acquirerReference ?? null}, acquirer_reference),
            acquirer = coalesce(${c.acquirer ?? null}, acquirer),
            details = details || coalesce(${c.details === undefined ? null : JSON.stringify(c.details)}::jsonb, '{}'),
            antifraud = coalesce(${analysis(c.antifraud)}::jsonb, antifraud),
            card_token = coalesce(${c.cardToken ?? null}, card_token),
            installments = coalesce(${c.plan?.installments ?? null}, installments),
            amount_total = coalesce(${c.plan?.amountTotal ?? null}, amount_total),
            amount_interest = coalesce(${c.plan?.amountInterest ?? null}, amount_interest),
            fee = coalesce(${c.plan?.fee ?? c.charged?.fee ?? null}, fee),
            split = coalesce(${splitChange(c)}::jsonb, split),
            updated_at = now()
          where account_id = ${accountId} and id = ${id}
          returning ${columns}`).pipe(withSpan("TransactionRepo.update")),
      page: (accountId, f, range) => {
        const filters = [
          ...(f.statuses ? [sql.in("t.status", f.statuses)] : []),
          ...(f.method ? [sql`t.method = ${f.method}`] : []),
          ...(f.document ? [sql`(t.buyer ->> 'document' = ${f.document} or c.document = ${f.document})`] : []),
          ...(f.createdFrom ? [sql`t.created_at >= ${f.createdFrom}`] : []),
          ...(f.createdBefore ? [sql`t.created_at < ${f.createdBefore}`] : []),
          ...(f.paymentLinkId
            ? [
                sql`exists (select 1 from payment_link_transactions l
                  where l.transaction_id = t.id and l.payment_link_id = ${f.paymentLinkId})`
              ]
            : [])
        ]
        const where = sql.and([sql`t.account_id = ${accountId}`, ...filters])
        const from = sql`transactions t left join customers c on c.id = t.customer_id and c.account_id = t.account_id`
        // On the index (account_id, created_at, id): a cursor's page is a seek, whatever its depth.
        const { seek, limit } = pageBounds(sql, range, "desc", "uuid", "t.")
        return keysetPage(
          sql`
            select ${sql.literal(
              COLUMNS.split(",")
                .map((c) => `t.${c.trim()}`)
                .join(", ")
            )}, t.${sql.literal(KEYSET_AT)}
            from ${from} where ${where} ${seek}
            order by t.created_at desc, t.id desc ${limit}`,
          range.limit,
          decodeRows,
          // Unfiltered, the account's running count (migration 0013); a filter counts its rows.
          (filters.length === 0
            ? sql<{ n: number }>`select coalesce(sum(n), 0)::int as n from transaction_totals
                where account_id = ${accountId}`
            : sql<{ n: number }>`select count(*)::int as n from ${from} where ${where}`
          ).pipe(Effect.map((r) => r[0]?.n ?? 0))
        ).pipe(withSpan("TransactionRepo.page"))
      },
      hasProcessing: (accountId, orderId) =>
        // A charge in PROCESSING blocks its order until its outcome is known (reconcile_charges asks the
        // acquirer; an operator concludes one it cannot learn: docs/providers.md "Known limits"). It used to
        // stop blocking after two minutes, and a buyer paying again meanwhile was charged twice if the first
        // charge turned out captured.
        sql`
          select 1 from transactions
          where account_id = ${accountId} and order_id = ${orderId} and status = 'PROCESSING'
          limit 1`.pipe(
          Effect.orDie,
          Effect.map((found) => found.length > 0),
          withSpan("TransactionRepo.hasProcessing")
        ),
      otherStatuses: (accountId, orderId, except) =>
        sql`
          select status from transactions
          where account_id = ${accountId} and order_id = ${orderId} and id <> ${except}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(StatusRows)),
          Effect.orDie,
          Effect.map((rows) => rows.map((r) => r.status)),
          withSpan("TransactionRepo.otherStatuses")
        ),
      touchProcessing: (accountId, id) =>
        sql`
          update transactions set updated_at = now()
          where account_id = ${accountId} and id = ${id} and status = 'PROCESSING'
          returning 1`.pipe(
          Effect.orDie,
          Effect.map((touched) => touched.length > 0),
          withSpan("TransactionRepo.touchProcessing")
        ),
      stuckProcessing: (olderThan, limit) =>
        sql`
          select account_id, id from transactions
          where status = 'PROCESSING' and updated_at < ${olderThan}
          order by updated_at limit ${limit}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Owned)),
          Effect.orDie,
          withSpan("TransactionRepo.stuckProcessing")
        ),
      pixNearExpiry: (from, to, limit) =>
        sql<{ accountId: AccountId; id: TransactionId; txid: string | null }>`
          select t.account_id as "accountId", t.id, t.details -> 'pix' ->> 'txid' as txid
          from transactions t join accounts a on a.id = t.account_id
          where t.method = 'PIX' and t.status = 'PENDING' and a.mode = 'live'
            and t.expires_at >= ${from} and t.expires_at <= ${to}
          order by t.expires_at limit ${limit}`.pipe(Effect.orDie, withSpan("TransactionRepo.pixNearExpiry")),
      // Keyed by id alone: a timestamp key would lose its microseconds in a JS Date and repeat pages.
      pendingBoletos: (limit, afterId) =>
        sql`
          select account_id, id from transactions
          where method = 'BOLETO'
            and (status = 'PENDING' or (${sql.literal(BOLEPIX_PAID_BY_PIX)}))
            ${afterId ? sql`and id > ${afterId}` : sql``}
          order by id limit ${limit}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Owned)),
          Effect.orDie,
          withSpan("TransactionRepo.pendingBoletos")
        )
    })
  })
)
