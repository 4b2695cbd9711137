import { Context, type Effect, type Option } from "effect"
import type { Transaction } from "../domain/transaction.ts"

export class TransactionRepo extends Context.Tag("TransactionRepo")<TransactionRepo, {
  readonly list: (accountId: string) => Effect.Effect<ReadonlyArray<Transaction>>
  readonly find: (accountId: string, id: string) => Effect.Effect<Option.Option<Transaction>>
}>() {}
