import type { ListFilter } from "../ports/Page.ts"
import { AccountId, CustomerId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { NotFound, ValidationFailed } from "../domain/errors.ts"
import { CustomerRepo, type CustomerChanges } from "../ports/CustomerRepo.ts"
import { Ids } from "../ports/Ids.ts"
import { fn } from "../spans.ts"

export interface CustomerInput {
  readonly name: string
  readonly email: string
  readonly document: string
  readonly phone: string
}

const notFound = () => new NotFound({ message: "customer not found" })

/** Customers of interface-v2: CPF de-duplication, immutable document, soft delete. */
export class Customers extends Effect.Service<Customers>()("Customers", {
  effect: Effect.gen(function* () {
    const repo = yield* CustomerRepo
    const ids = yield* Ids
    return {
      /** `created: false` when the CPF already belonged to a live customer of the account (rule 1). */
      create: fn("Customers.create")(function* (accountId: AccountId, input: CustomerInput) {
        return yield* repo.insertOrGetByDocument(accountId, { id: CustomerId.make(yield* ids.next), ...input })
      }),
      /** The account's live customers, newest first (docs/api.md "Lists"), streamed by pages (never all in memory). */
      list: (accountId: AccountId, filter: ListFilter = {}) => repo.stream(accountId, filter),
      get: fn("Customers.get")(function* (accountId: AccountId, id: CustomerId) {
        return yield* Option.match(yield* repo.find(accountId, id), {
          onNone: () => Effect.fail(notFound()),
          onSome: Effect.succeed
        })
      }),
      update: fn("Customers.update")(function* (
        accountId: AccountId,
        id: CustomerId,
        changes: CustomerChanges & { readonly document?: unknown }
      ) {
        if (changes.document !== undefined) {
          return yield* ValidationFailed.one("document", "document cannot be changed after creation")
        }
        const { document: _, ...allowed } = changes
        return yield* Option.match(yield* repo.update(accountId, id, allowed), {
          onNone: () => Effect.fail(notFound()),
          onSome: Effect.succeed
        })
      }),
      remove: fn("Customers.remove")(function* (accountId: AccountId, id: CustomerId) {
        if (!(yield* repo.softDelete(accountId, id))) return yield* notFound()
      })
    }
  })
}) {}
