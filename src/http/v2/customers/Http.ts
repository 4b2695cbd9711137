import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Schema, Stream } from "effect"
import { CustomerBody } from "./Api.ts"
import { livemode, livemodeOf, withLivemode } from "../../shared/livemode.ts"
import { Customers } from "../../../app/Customers.ts"
import { ignoredFields } from "../../../domain/customer.ts"
import { GatewayApi } from "../../Api.ts"
import { rendered } from "../render.ts"
import { jsonArrayStream } from "../../shared/jsonStream.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { toListFilter } from "../listQuery.ts"

export const CustomersHttp = HttpApiBuilder.group(GatewayApi, "customers", (handlers) =>
  Effect.gen(function* () {
    const customers = yield* Customers
    const encode = Schema.encode(CustomerBody)
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const made = yield* customers.create(accountId, payload)
          const customer = yield* withLivemode(made.customer)
          if (made.created) return customer
          // Rule 1: the CPF is already a customer of this account; answer with that record, 200, and
          // name the sent fields it did not take (docs/api.md "Customers"): PATCH changes them.
          const ignored = ignoredFields(payload, made.customer)
          return yield* encode(customer).pipe(
            Effect.flatMap((body) => HttpServerResponse.json(body, { status: 200 })),
            Effect.map((response) =>
              ignored.length === 0
                ? response
                : HttpServerResponse.setHeader(response, "x-customer-fields-ignored", ignored.join(","))
            ),
            Effect.orDie
          )
        })
      )
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) =>
          Effect.flatMap(livemode, (live) =>
            jsonArrayStream(
              CustomerBody,
              Stream.map(customers.list(accountId, toListFilter(urlParams)), (c) => ({ ...c, ...livemodeOf(live) }))
            )
          )
        )
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => customers.get(accountId, path.id)).pipe(
          Effect.flatMap(withLivemode),
          rendered
        )
      )
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => customers.update(accountId, path.id, payload)).pipe(
          Effect.flatMap(withLivemode),
          rendered
        )
      )
      .handle("remove", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => customers.remove(accountId, path.id)).pipe(rendered)
      )
  })
)
