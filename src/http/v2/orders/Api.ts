import { CustomerId, OrderId } from "../../../domain/ids.ts"
import { ReadsAhead, ScopeResource } from "../../shared/annotations.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Amount } from "../../../domain/fields.ts"
import { Order } from "../../../domain/order.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { ApiKeyAuth } from "../../shared/security.ts"
import { OrdersQuery } from "../listQuery.ts"
import { LivemodeField } from "../../shared/livemode.ts"

export const CreateOrder = payload(Schema.Struct({ customerId: CustomerId, amount: Amount }))

/** An order as the API shows it: with its mode (issue 24 §1). */
export const OrderBody = Schema.Struct({ ...Order.fields, livemode: LivemodeField }).annotations({
  identifier: "Order"
})

const id = HttpApiSchema.param("id", OrderId)

export class OrdersApi extends HttpApiGroup.make("orders")
  .annotate(ScopeResource, "orders")
  .add(
    HttpApiEndpoint.post("create", "/")
      .setPayload(CreateOrder)
      .addSuccess(OrderBody, { status: 201 })
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Creates a PENDING order. 404 `customerId not found` when the customer is " +
          "unknown, deleted or of another account."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/").setUrlParams(OrdersQuery).addSuccess(Schema.Array(OrderBody)).addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("get")`/${id}`
      .addSuccess(OrderBody)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(ReadsAhead, { kind: "order" as const, param: "id" })
  )
  .middleware(ApiKeyAuth)
  .prefix("/orders")
  .annotate(OpenApi.Title, "Orders") {}
