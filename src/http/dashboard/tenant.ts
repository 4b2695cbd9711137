import { Effect } from "effect"
import type { AccountId } from "../../domain/ids.ts"
import { AccountRepo } from "../../ports/AccountRepo.ts"
import { Ids } from "../../ports/Ids.ts"
import { CurrentSession } from "../shared/security.ts"
import { CurrentMode } from "./mode.ts"

/**
 * The tenant a dashboard request shows (docs/dashboard.md "Mode"): the merchant who logged in (its test
 * tenant), or its live tenant when `X-Gateway-Mode: live`, made on first use like the live key's
 * (docs/providers.md "Test and live modes"). Built once per group; the effect needs only what the
 * dashboard's middleware provides.
 */
export const dashboardTenant = Effect.gen(function* () {
  const tenants = yield* AccountRepo
  const ids = yield* Ids
  return Effect.gen(function* () {
    const { accountId } = yield* CurrentSession
    if ((yield* CurrentMode) === "test") return accountId
    return (yield* tenants.liveTenant(accountId, yield* ids.next)).id as AccountId
  })
})
