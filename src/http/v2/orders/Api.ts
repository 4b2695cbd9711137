import { CustomerId, OrderId } from "../../../domain/ids.ts"
import { ScopeResource } from "../../shared/annotations.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Amount } from "../../../domain/fields.ts"
import { Order } from "../../../domain/order.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { ApiKeyAuth } from "../../shared/security.ts"
import { OrdersQuery } from "../listQuery.ts"

export const CreateOrder = payload(Schema.Struct({ customerId: CustomerId, amount: Amount }))

const id = HttpApiSchema.param("id", OrderId)

export class OrdersApi extends HttpApiGroup.make("orders")
  .annotate(ScopeResource, "orders")
  .add(
    HttpApiEndpoint.post("create", "/")
      .setPayload(CreateOrder)
      .addSuccess(Order, { status: 201 })
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Creates a PENDING order. 404 `customerId not found` when the customer is " +
          "unknown, deleted or of another account."
      )
  )
  .add(HttpApiEndpoint.get("list", "/").setUrlParams(OrdersQuery).addSuccess(Schema.Array(Order)).addError(BadRequest))
  .add(HttpApiEndpoint.get("get")`/${id}`.addSuccess(Order).addError(BadRequest).addError(NotFound))
  .middleware(ApiKeyAuth)
  .prefix("/orders")
  .annotate(OpenApi.Title, "Orders") {}
