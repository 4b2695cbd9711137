import { Layer } from "effect"
import { describe } from "vitest"
import { absentPayouts } from "../../src/adapters/providers/live.ts"
import { FAILING_ACCOUNT, SandboxPayoutsLive } from "../../src/adapters/providers/sandbox/SandboxPayouts.ts"
import { Payouts } from "../../src/ports/Payouts.ts"
import { bankAccount, payoutsKit } from "./payouts.kit.ts"

// The sandbox bank (CONTRACT-v1 §7): pays every transfer but to its failing account, which it refuses as closed.
// It keeps no transfers and cannot be made unreachable, so the cases that need those levers are skipped.
describe("sandbox", () => {
  payoutsKit(() => ({
    name: "sandbox",
    layer: SandboxPayoutsLive,
    refusal: { bankAccount: bankAccount(FAILING_ACCOUNT), reason: "account_closed" }
  }))
})

// Live mode with no LIVE_PAYOUTS_PROVIDER (src/adapters/providers/live.ts): it pays nothing out, so it is held to
// `available` answering false and to paying nothing; the cases that pay are skipped.
describe("live, no payouts adapter configured", () => {
  payoutsKit(() => ({ name: "live, absent", layer: Layer.succeed(Payouts, absentPayouts), available: false }))
})
