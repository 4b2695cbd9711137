import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../../../config/AppConfig.ts"
import { ValidationFailed } from "../../../domain/errors.ts"
import { installmentOptions } from "../../../domain/installments.ts"
import { MAX_AMOUNT } from "../../../domain/order.ts"
import { GatewayApi } from "../../Api.ts"
import { renderedV1 } from "../render.ts"

export const V1InstallmentsHttp = HttpApiBuilder.group(GatewayApi, "v1Installments", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    return handlers.handle("simulate", ({ urlParams }) =>
      Effect.gen(function* () {
        const raw = urlParams.amount
        const amount = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : Number.NaN
        if (!Number.isInteger(amount) || amount < 1 || amount > MAX_AMOUNT) {
          return yield* ValidationFailed.one(
            "amount",
            `amount is required: an integer number of centavos from 1 to ${MAX_AMOUNT}`
          )
        }
        return {
          success: true as const,
          installments: installmentOptions(amount, config.installments).map((o) => ({
            installment: o.installment,
            amount: o.amount,
            total: o.total,
            interest_rate: o.interestRate
          }))
        }
      }).pipe(renderedV1)
    )
  })
)
