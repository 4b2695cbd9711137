import type { ListFilter } from "./Page.ts"
import type { AccountId, CustomerId, OrderId } from "../domain/ids.ts"
import { Context, type Effect, type Option, type Stream } from "effect"
import type { Order, OrderStatus } from "../domain/order.ts"

export class OrderRepo extends Context.Tag("OrderRepo")<
  OrderRepo,
  {
    /** Inserts only if the customer is live in the account (checked in the same statement); None otherwise. */
    readonly insertForLiveCustomer: (
      accountId: AccountId,
      order: { readonly id: OrderId; readonly customerId: CustomerId; readonly amount: number }
    ) => Effect.Effect<Option.Option<Order>>
    /** Every order of the account, oldest first, read page by page (interface-v2 lists return all). */
    readonly stream: (accountId: AccountId, filter?: ListFilter) => Stream.Stream<Order>
    readonly find: (accountId: AccountId, id: OrderId) => Effect.Effect<Option.Option<Order>>
    /** Row-locks the order for the rest of the database transaction. */
    readonly findForUpdate: (accountId: AccountId, id: OrderId) => Effect.Effect<Option.Option<Order>>
    /**
     * The order with whether its customer is still live and the customer's name (a PIX charge's payer),
     * in one read (a charge checks both), row-locking the order when `lock` (for the rest of the
     * database transaction).
     */
    readonly findToCharge: (
      accountId: AccountId,
      id: OrderId,
      lock: boolean
    ) => Effect.Effect<
      Option.Option<{
        readonly order: Order
        readonly customerLive: boolean
        readonly customerName: string | null
        /** A card charge of the order is PROCESSING (its outcome unknown). */
        readonly chargeInFlight: boolean
      }>
    >
    /**
     * Inside Transactional.batch: the batch writes nothing and fails with StaleRead unless the order is
     * still as `findToCharge` read it (status, amount, customer, its liveness, no charge in flight); it
     * row-locks the order
     * until the batch commits, as `findToCharge` with `lock` does.
     */
    readonly expectAsRead: (
      accountId: AccountId,
      seen: { readonly order: Order; readonly customerLive: boolean }
    ) => Effect.Effect<void>
    readonly setStatus: (accountId: AccountId, id: OrderId, status: OrderStatus) => Effect.Effect<void>
  }
>() {}
