import type { AccountId, SubaccountId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { NotFound } from "../domain/errors.ts"
import type { PageRange } from "../ports/Page.ts"
import { type NewSubaccount, type SubaccountFilter, SubaccountRepo } from "../ports/SubaccountRepo.ts"
import { fn } from "../spans.ts"

/** The account's subaccounts, the recipients of split payments (CONTRACT-v1 §8). */
export class Subaccounts extends Effect.Service<Subaccounts>()("Subaccounts", {
  effect: Effect.gen(function* () {
    const repo = yield* SubaccountRepo

    return {
      /** A valid new subaccount (the interface checked the fields); a reused document → `subaccount_exists`. */
      create: fn("Subaccounts.create")(function* (accountId: AccountId, subaccount: NewSubaccount) {
        return yield* repo.insert(accountId, subaccount)
      }),
      get: fn("Subaccounts.get")(function* (accountId: AccountId, id: SubaccountId) {
        return yield* Option.match(yield* repo.find(accountId, id), {
          onNone: () => Effect.fail(new NotFound({ message: "subaccount not found" })),
          onSome: Effect.succeed
        })
      }),
      /** A page of the account's subaccounts, newest first, with the total of matching ones. */
      page: fn("Subaccounts.page")(function* (accountId: AccountId, filter: SubaccountFilter, range: PageRange) {
        return yield* repo.page(accountId, filter, range)
      })
    }
  })
}) {}
