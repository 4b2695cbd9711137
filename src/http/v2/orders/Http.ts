import { HttpApiBuilder } from "@effect/platform"
import { Effect, Stream } from "effect"
import { OrderBody } from "./Api.ts"
import { livemode, livemodeOf, withLivemode } from "../../shared/livemode.ts"
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
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => orders.create(accountId, payload)).pipe(
          Effect.flatMap(withLivemode),
          rendered
        )
      )
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) =>
          Effect.flatMap(livemode, (live) =>
            jsonArrayStream(
              OrderBody,
              Stream.map(orders.list(accountId, toListFilter(urlParams)), (o) => ({ ...o, ...livemodeOf(live) }))
            )
          )
        )
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => orders.get(accountId, path.id)).pipe(
          Effect.flatMap(withLivemode),
          rendered
        )
      )
  })
)
