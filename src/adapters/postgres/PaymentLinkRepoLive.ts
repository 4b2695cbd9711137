import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { PaymentLinkRecord } from "../../domain/paymentLink.ts"
import { PaymentLinkRepo } from "../../ports/PaymentLinkRepo.ts"
import { newestFirstPage } from "./keyset.ts"
import { traced } from "./traced.ts"
import { decodedRows } from "./decodedRows.ts"

const COLUMNS = `id, account_id, name, description, amount, min_amount, max_amount, items, methods, max_installments,
  expires_at, max_uses, uses, active, metadata, created_at, updated_at`

// Rows come back camelCased (SqlLive); jsonb `items` as stored (the domain's LinkItem). A row that does
// not decode is a defect of the database, not of the request.
const decodeRows = Schema.decodeUnknown(Schema.Array(PaymentLinkRecord))
const decodeSlot = Schema.decodeUnknown(
  Schema.Tuple(Schema.Struct({ allowed: Schema.Boolean, remaining: Schema.Number, resetMs: Schema.Number }))
)

export const PaymentLinkRepoLive = Layer.effect(
  PaymentLinkRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const { first } = decodedRows(decodeRows)
    // rate_limit_take (migrations 0010, 0011) commits its slot without waiting for the disk, which is why it
    // runs alone here and never inside the visit's transaction.
    const takeSlot = (key: Statement.Fragment, perMinute: number) =>
      sql`select allowed, remaining, reset_ms from rate_limit_take(${key}, ${perMinute}, interval '60 seconds')`.pipe(
        Effect.flatMap(decodeSlot),
        Effect.orDie,
        Effect.map(([slot]) => ({ ...slot, limit: perMinute }))
      )

    return PaymentLinkRepo.of(
      traced("PaymentLinkRepo", {
        insert: (accountId, l) =>
          Effect.gen(function* () {
            const inserted = yield* first(sql`
              insert into payment_links (id, account_id, name, description, amount, min_amount, max_amount, items,
                                         methods, max_installments, expires_at, max_uses, metadata)
              values (${l.id}, ${accountId}, ${l.name}, ${l.description}, ${l.amount}, ${l.minAmount},
                      ${l.maxAmount}, ${JSON.stringify(l.items)}::jsonb, ${`{${l.methods.join(",")}}`}::text[],
                      ${l.maxInstallments}, ${l.expiresAt}, ${l.maxUses},
                      ${l.metadata === null ? null : JSON.stringify(l.metadata)}::jsonb)
              on conflict (id) do nothing
              returning ${columns}`)
            if (Option.isSome(inserted)) return inserted.value
            // The same id: a request resumed through its Idempotency-Key after a crash.
            const same = yield* first(
              sql`select ${columns} from payment_links where account_id = ${accountId} and id = ${l.id}`
            )
            return yield* Option.match(same, {
              onNone: () => Effect.dieMessage("payment link id taken by another account"),
              onSome: Effect.succeed
            })
          }),
        find: (accountId, id) =>
          first(sql`select ${columns} from payment_links where account_id = ${accountId} and id = ${id}`),
        findPublic: (id) => first(sql`select ${columns} from payment_links where id = ${id}`),
        page: (accountId, f, range) => {
          const where = sql.and([
            sql`account_id = ${accountId}`,
            ...(f.active !== undefined ? [sql`active = ${f.active}`] : []),
            ...(f.createdFrom !== undefined ? [sql`created_at >= ${f.createdFrom}`] : []),
            ...(f.createdBefore !== undefined ? [sql`created_at < ${f.createdBefore}`] : [])
          ])
          return newestFirstPage(sql, "payment_links", COLUMNS, where, range, decodeRows)
        },
        findForUpdate: (accountId, id) =>
          first(sql`select ${columns} from payment_links where account_id = ${accountId} and id = ${id} for update`),
        save: (accountId, l) =>
          Effect.flatMap(
            first(sql`
              update payment_links set name = ${l.name}, description = ${l.description},
                items = ${JSON.stringify(l.items)}::jsonb, methods = ${`{${l.methods.join(",")}}`}::text[],
                max_installments = ${l.maxInstallments}, expires_at = ${l.expiresAt}, max_uses = ${l.maxUses},
                metadata = ${l.metadata === null ? null : JSON.stringify(l.metadata)}::jsonb, updated_at = now()
              where account_id = ${accountId} and id = ${l.id}
              returning ${columns}`),
            Option.match({
              onNone: () => Effect.dieMessage("payment link saved but not found"),
              onSome: Effect.succeed
            })
          ),
        setActive: (accountId, id, active) =>
          first(sql`
            update payment_links set active = ${active}, updated_at = now()
            where account_id = ${accountId} and id = ${id}
            returning ${columns}`),
        // The rule of domain/paymentLink.ts linkRefusal, decided here under the row lock: concurrent
        // visits wait for each other's commit and re-check `uses` (READ COMMITTED re-evaluates the WHERE
        // on the updated row), so no more than max_uses ever commit. The expiry against the clock when the
        // row is granted, not `now()` (the transaction's start): a visit that waited past `expires_at` for
        // another's charge was charged after the deadline.
        takeUse: (accountId, id) =>
          first(sql`
            update payment_links set uses = uses + 1, updated_at = now()
            where account_id = ${accountId} and id = ${id} and active
              and (expires_at is null or expires_at > clock_timestamp())
              and (max_uses is null or uses < max_uses)
            returning ${columns}`),
        takeVisitSlot: (id, perMinute) => takeSlot(sql`${id}`, perMinute),
        // The window's key must be a uuid (rate_limit_take): the digest of the link and the address, as one.
        takeAddressVisitSlot: (id, address, perMinute) =>
          takeSlot(sql`md5(${`payment-link-visits ${id} ${address}`})::uuid`, perMinute),
        recordVisit: (accountId, id, transactionId, maxInstallments) =>
          sql`
            insert into payment_link_transactions (transaction_id, payment_link_id, account_id, max_installments)
            values (${transactionId}, ${id}, ${accountId}, ${maxInstallments})
            on conflict (transaction_id) do nothing`.pipe(Effect.asVoid, Effect.orDie)
      })
    )
  })
)
