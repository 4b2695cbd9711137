import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Order } from "../../../domain/order.ts"
import { Orders } from "../../../app/Orders.ts"
import { GatewayApi } from "../../Api.ts"
import { rendered } from "../render.ts"
import { jsonArrayStream } from "../../shared/jsonStream.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { toListFilter } from "../listQuery.ts"

export const OrdersHttp = HttpApiBuilder.group(GatewayApi, "orders", (handlers) =>
  Effect.gen(function* () {
    const orders = yield* Orders
    return handlers
      .handle("create", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => orders.create(accountId, payload)).pipe(rendered)
      )
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) =>
          jsonArrayStream(Order, orders.list(accountId, toListFilter(urlParams)))
        )
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => orders.get(accountId, path.id)).pipe(rendered)
      )
  })
)
