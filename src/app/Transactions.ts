import { Effect, Option } from "effect"
import { NotFound } from "../domain/errors.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"

export class Transactions extends Effect.Service<Transactions>()("Transactions", {
  effect: Effect.gen(function* () {
    const repo = yield* TransactionRepo
    return {
      list: (accountId: string) => repo.list(accountId),
      get: Effect.fn("Transactions.get")(function* (accountId: string, id: string) {
        return yield* Option.match(yield* repo.find(accountId, id), {
          onNone: () => Effect.fail(new NotFound({ message: "transaction not found" })),
          onSome: Effect.succeed
        })
      })
    }
  })
}) {}
