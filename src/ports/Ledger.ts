import type { AccountId } from "../domain/ids.ts"
import { Context, Effect, Layer } from "effect"
import type { Trigger } from "../domain/lifecycle.ts"
import type { TransactionRecord } from "../domain/transaction.ts"

/** A status change that may move money, as the lifecycle hands it to the books. */
export interface Movement {
  readonly trigger: Trigger
  readonly before: TransactionRecord
  readonly after: TransactionRecord
}

/**
 * The books. The lifecycle calls `record` inside the database transaction of every status change, so
 * a posting commits or rolls back with the change that causes it.
 */
export class Ledger extends Context.Tag("Ledger")<
  Ledger,
  { readonly record: (accountId: AccountId, movement: Movement) => Effect.Effect<void> }
>() {
  /** No books yet: every movement is accepted and nothing is posted. */
  static readonly None = Layer.succeed(Ledger, Ledger.of({ record: () => Effect.void }))
}
