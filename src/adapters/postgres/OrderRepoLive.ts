import { SqlClient } from "@effect/sql"
import { KEYSET_AT, listWhere, keysetStream, seekAfter } from "./keyset.ts"
import { traced } from "./traced.ts"
import { Effect, Layer, Option } from "effect"
import { OrderRepo } from "../../ports/OrderRepo.ts"
import { deferWrite } from "./deferred.ts"
import { toCharge, TO_CHARGE_COLUMNS } from "./orderToCharge.ts"
import { ORDER_COLUMNS, type OrderRow, toOrder } from "./orderRow.ts"
import { readAheadOr } from "./readAhead.ts"

const first = (rows: ReadonlyArray<OrderRow>) => Option.map(Option.fromNullable(rows[0]), toOrder)

export const OrderRepoLive = Layer.effect(
  OrderRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(ORDER_COLUMNS)
    const toChargeColumns = sql.literal(TO_CHARGE_COLUMNS)
    return OrderRepo.of(
      traced("OrderRepo", {
        // The customer row is share-locked by the select, so a concurrent delete cannot slip between the
        // check and the insert.
        insertForLiveCustomer: (accountId, order) =>
          sql<OrderRow>`
          insert into orders (id, account_id, customer_id, amount, status)
          select ${order.id}, ${accountId}, c.id, ${order.amount}, 'PENDING'
          from customers c
          where c.account_id = ${accountId} and c.id = ${order.customerId} and c.deleted_at is null
          for share
          returning ${columns}`.pipe(Effect.orDie, Effect.map(first)),
        // Newest first, ties by id (docs/api.md "Lists"): keyset pages on the index (account_id, created_at, id).
        stream: (accountId, filter = {}) =>
          keysetStream(
            (after, limit) => sql`
              select ${columns}, ${sql.literal(KEYSET_AT)} from orders
              where account_id = ${accountId}
                ${listWhere(sql, filter)}
                ${seekAfter(sql, Option.getOrUndefined(after), "desc", "uuid")}
              order by created_at desc, id desc limit ${limit}`,
            (rows) => Effect.sync(() => rows.map(toOrder))
          ),
        // The read the admission made ahead in its round trip serves, once (readAhead.ts).
        find: (accountId, id) =>
          readAheadOr("order", accountId, id, () =>
            sql<OrderRow>`select ${columns} from orders where account_id = ${accountId} and id = ${id}`.pipe(
              Effect.orDie,
              Effect.map(first)
            )
          ),
        findForUpdate: (accountId, id) =>
          sql<OrderRow>`select ${columns} from orders where account_id = ${accountId} and id = ${id} for update`.pipe(
            Effect.orDie,
            Effect.map(first)
          ),
        // Without the lock, the read the admission made ahead in its round trip serves, once (orderToCharge.ts).
        findToCharge: (accountId, id, lock) => {
          const read = () =>
            sql`
            select ${toChargeColumns}
            from orders o
            left join customers c on c.account_id = o.account_id and c.id = o.customer_id
            where o.account_id = ${accountId} and o.id = ${id}
            ${lock ? sql`for update of o` : sql``}`.pipe(
              Effect.orDie,
              Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toCharge))
            )
          return lock ? read() : readAheadOr("orderToCharge", accountId, id, read)
        },
        // Inside a batch (deferred.ts): fails the whole statement unless the order is still as read,
        // row-locking it as findToCharge's `lock` does (migration 0036, expect_unchanged).
        expectAsRead: (accountId, { customerLive, order }) =>
          deferWrite(sql, () => ({
            select: [
              // No card charge of the order in flight, asked once its row is locked, in a fresh snapshot
              // (migration 0056): one committed while this statement waited for the lock is seen.
              sql`expect_unchanged(exists (
                    select 1 from (
                      select o.account_id, o.id from orders o
                      where o.account_id = ${accountId} and o.id = ${order.id} and o.status = ${order.status}
                        and o.amount = ${order.amount} and o.customer_id = ${order.customerId}
                        and exists (
                          select 1 from customers c
                          where c.account_id = o.account_id and c.id = o.customer_id and c.deleted_at is null
                        ) = ${customerLive}
                      for update of o
                      -- OFFSET 0 keeps the filter below above the lock: without it the planner pushes it into
                      -- the scan, before the wait, where it would miss what committed meanwhile.
                      offset 0
                    ) locked
                    where not order_charge_in_flight(locked.account_id, locked.id)))`
            ]
          })),
        setStatus: (accountId, id, status) =>
          sql`update orders set status = ${status}, updated_at = now() where account_id = ${accountId} and id =
          ${id}`.pipe(Effect.orDie, Effect.asVoid)
      })
    )
  })
)
