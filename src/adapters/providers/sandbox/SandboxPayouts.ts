import { Effect, Layer } from "effect"
import { Payouts } from "../../../ports/Payouts.ts"
import { withSpan } from "../../../spans.ts"

/**
 * The sandbox bank (CONTRACT-v1 §7): pays every transfer, except to account "0000000", which it
 * refuses as a closed account so that a merchant can see `withdraw.failed` and the money come back.
 */
export const FAILING_ACCOUNT = "0000000"

export const SandboxPayoutsLive = Layer.succeed(
  Payouts,
  Payouts.of({
    available: Effect.succeed(true),
    pay: ({ bankAccount }) =>
      Effect.succeed(
        bankAccount.account === FAILING_ACCOUNT
          ? ({ _tag: "Failed", reason: "account_closed" } as const)
          : ({ _tag: "Paid" } as const)
      ).pipe(withSpan("SandboxPayouts.pay"))
  })
)
