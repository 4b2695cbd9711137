import { CustomerId } from "../../../domain/ids.ts"
import { ScopeResource, ReadsAhead } from "../../shared/annotations.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Customer } from "../../../domain/customer.ts"
import { LivemodeField } from "../../shared/livemode.ts"
import { Cpf, Email, Name, Phone } from "../../../domain/fields.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { ApiKeyAuth } from "../../shared/security.ts"
import { CustomersQuery } from "../listQuery.ts"

/** A customer as the API shows it: with its mode (issue 24 §1). */
export const CustomerBody = Schema.Struct({ ...Customer.fields, livemode: LivemodeField }).annotations({
  identifier: "Customer"
})

export const CreateCustomer = payload(Schema.Struct({ name: Name, email: Email, document: Cpf, phone: Phone }))

export const UpdateCustomer = payload(
  Schema.Struct({
    name: Schema.optionalWith(Name, { exact: true }),
    email: Schema.optionalWith(Email, { exact: true }),
    phone: Schema.optionalWith(Phone, { exact: true }),
    // Declared so that the documentation says it; any value is refused with 400.
    document: Schema.optional(Schema.Unknown.annotations({ description: "cannot be changed: sending it is a 400" }))
  })
)

const id = HttpApiSchema.param("id", CustomerId)

export class CustomersApi extends HttpApiGroup.make("customers")
  .annotate(ScopeResource, "customers")
  .add(
    HttpApiEndpoint.post("create", "/")
      .setPayload(CreateCustomer)
      .addSuccess(CustomerBody, { status: 201 })
      .addSuccess(
        CustomerBody.annotations({
          description: "A customer with this CPF already exists in the account: that record"
        }),
        { status: 200 }
      )
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "201 with the new customer, or 200 with the existing one when the CPF is already a customer of the account."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/")
      .setUrlParams(CustomersQuery)
      .addSuccess(Schema.Array(CustomerBody))
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("get")`/${id}`
      .addSuccess(CustomerBody)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(ReadsAhead, { kind: "customer" as const, param: "id" })
  )
  .add(
    HttpApiEndpoint.patch("update")`/${id}`
      .setPayload(UpdateCustomer)
      .addSuccess(CustomerBody)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Changes any of name, email, phone; omitted fields are unchanged. `document` cannot be changed (400)."
      )
  )
  .add(
    HttpApiEndpoint.del("remove")`/${id}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Irreversible soft delete: the id then answers 404 and is refused for new orders; history is kept."
      )
  )
  .middleware(ApiKeyAuth)
  .prefix("/customers")
  .annotate(OpenApi.Title, "Customers") {}
