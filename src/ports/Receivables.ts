import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Context, type Effect, type Option } from "effect"
import type { NewReceivable, Party } from "../domain/ledger.ts"

export interface Receivable extends NewReceivable {
  readonly id: string
  readonly transactionId: TransactionId
  readonly settledAt: Date | null
}

export interface NewHold {
  readonly party: Party
  readonly source: "receivable" | "available"
  readonly receivableId: string | null
  readonly amount: number
}

export interface Hold extends NewHold {
  readonly id: string
}

/**
 * Money of a sale that is not available yet (its receivables and reserve, CONTRACT-v1 §7), and the
 * record of what a refund or dispute took and from where, so that it can be put back.
 */
export class Receivables extends Context.Tag("Receivables")<
  Receivables,
  {
    readonly insert: (
      accountId: AccountId,
      transactionId: TransactionId,
      receivables: ReadonlyArray<NewReceivable>
    ) => Effect.Effect<ReadonlyArray<Receivable>>
    /** The transaction's unsettled receivables, row-locked, the latest due first. */
    readonly openForUpdate: (
      accountId: AccountId,
      transactionId: TransactionId
    ) => Effect.Effect<ReadonlyArray<Receivable>>
    readonly findForUpdate: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<Receivable>>
    readonly setAmount: (accountId: AccountId, id: string, amount: number) => Effect.Effect<void>
    readonly markSettled: (accountId: AccountId, id: string, at: Date) => Effect.Effect<void>
    /** When the oldest receivable that is due and not settled fell due (settlement lag), across accounts. */
    readonly oldestDue: (now: Date) => Effect.Effect<Option.Option<Date>>
    readonly hold: (
      accountId: AccountId,
      transactionId: TransactionId,
      tag: string,
      holds: ReadonlyArray<NewHold>
    ) => Effect.Effect<void>
    /** The unreleased holds of a tag, and marks them released. */
    readonly release: (
      accountId: AccountId,
      transactionId: TransactionId,
      tag: string
    ) => Effect.Effect<ReadonlyArray<Hold>>
    /** The tag starting with `prefix` that still has unreleased holds (the open dispute's), if any. */
    readonly openTag: (
      accountId: AccountId,
      transactionId: TransactionId,
      prefix: string
    ) => Effect.Effect<Option.Option<string>>
    /** How many distinct tags starting with `prefix` the transaction has had (disputes are numbered). */
    readonly countTags: (accountId: AccountId, transactionId: TransactionId, prefix: string) => Effect.Effect<number>
  }
>() {}
