import type { ListFilter } from "../ports/Page.ts"
import { AccountId, CustomerId, OrderId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { NotFound } from "../domain/errors.ts"
import { Ids } from "../ports/Ids.ts"
import { OrderRepo } from "../ports/OrderRepo.ts"
import { fn } from "../spans.ts"

export class Orders extends Effect.Service<Orders>()("Orders", {
  effect: Effect.gen(function* () {
    const repo = yield* OrderRepo
    const ids = yield* Ids
    return {
      /** The customer must be live in the account; a deleted or foreign one reads as not found. */
      create: fn("Orders.create")(function* (
        accountId: AccountId,
        input: { readonly customerId: CustomerId; readonly amount: number }
      ) {
        const order = yield* repo.insertForLiveCustomer(accountId, { id: OrderId.make(yield* ids.next), ...input })
        return yield* Option.match(order, {
          onNone: () => Effect.fail(new NotFound({ message: "customerId not found" })),
          onSome: Effect.succeed
        })
      }),
      /** Every order of the account, newest first (docs/api.md "Lists"), as a stream of pages (never all in memory). */
      list: (accountId: AccountId, filter: ListFilter = {}) => repo.stream(accountId, filter),
      get: fn("Orders.get")(function* (accountId: AccountId, id: OrderId) {
        return yield* Option.match(yield* repo.find(accountId, id), {
          onNone: () => Effect.fail(new NotFound({ message: "order not found" })),
          onSome: Effect.succeed
        })
      })
    }
  })
}) {}
