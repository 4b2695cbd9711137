import { Context, type Effect, type Option } from "effect"
import type { Order, OrderStatus } from "../domain/order.ts"

export class OrderRepo extends Context.Tag("OrderRepo")<
  OrderRepo,
  {
    /** Inserts only if the customer is live in the account (checked in the same statement); None otherwise. */
    readonly insertForLiveCustomer: (
      accountId: string,
      order: { readonly id: string; readonly customerId: string; readonly amount: number }
    ) => Effect.Effect<Option.Option<Order>>
    readonly list: (accountId: string) => Effect.Effect<ReadonlyArray<Order>>
    readonly find: (accountId: string, id: string) => Effect.Effect<Option.Option<Order>>
    /** Row-locks the order for the rest of the database transaction. */
    readonly findForUpdate: (accountId: string, id: string) => Effect.Effect<Option.Option<Order>>
    readonly setStatus: (accountId: string, id: string, status: OrderStatus) => Effect.Effect<void>
  }
>() {}
