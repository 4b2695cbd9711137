import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Customers } from "../../../app/Customers.ts"
import { Customer, ignoredFields } from "../../../domain/customer.ts"
import { GatewayApi } from "../../Api.ts"
import { rendered } from "../render.ts"
import { jsonArrayStream } from "../../shared/jsonStream.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { toListFilter } from "../listQuery.ts"

export const CustomersHttp = HttpApiBuilder.group(GatewayApi, "customers", (handlers) =>
  Effect.gen(function* () {
    const customers = yield* Customers
    const encode = Schema.encode(Customer)
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const { created, customer } = yield* customers.create(accountId, payload)
          if (created) return customer
          // Rule 1: the CPF is already a customer of this account; answer with that record, 200, and
          // name the sent fields it did not take (docs/api.md "Customers"): PATCH changes them.
          const ignored = ignoredFields(payload, customer)
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
          jsonArrayStream(Customer, customers.list(accountId, toListFilter(urlParams)))
        )
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => customers.get(accountId, path.id)).pipe(rendered)
      )
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => customers.update(accountId, path.id, payload)).pipe(
          rendered
        )
      )
      .handle("remove", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => customers.remove(accountId, path.id)).pipe(rendered)
      )
  })
)
