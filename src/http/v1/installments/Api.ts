import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ScopeResource } from "../../shared/annotations.ts"
import { BadRequest } from "../../shared/errors.ts"
import { ApiTokenAuth } from "../security.ts"

export const InstallmentOption = Schema.Struct({
  installment: Schema.Int,
  amount: Schema.Int.annotations({
    description: "centavos of each installment (interest-free: the first adds the remainder)"
  }),
  total: Schema.Int,
  interest_rate: Schema.Number.annotations({ description: "percent per month; 0 when interest-free" })
})

export class V1InstallmentsApi extends HttpApiGroup.make("v1Installments")
  .annotate(ScopeResource, "payments")
  .add(
    HttpApiEndpoint.get("simulate", "/installments")
      .setUrlParams(Schema.Struct({ amount: Schema.optional(Schema.String) }))
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), installments: Schema.Array(InstallmentOption) }))
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Options 1..INSTALLMENTS_MAX for `amount` centavos: interest-free up to " +
          "INSTALLMENTS_WITHOUT_INTEREST (total = amount); above, the Price table at " +
          "INSTALLMENT_MONTHLY_INTEREST_PERCENT a month, each installment rounded half up, total = installment × n. " +
          "Options whose installment is below INSTALLMENT_MIN_AMOUNT are omitted (option 1 always offered). " +
          "A card charge with n installments charges option n's total."
      )
  )
  .middleware(ApiTokenAuth)
  .annotate(OpenApi.Title, "Installments (v1)") {}
