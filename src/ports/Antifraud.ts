import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Context, type Effect } from "effect"
import type { AntifraudAnalysis } from "../domain/antifraud.ts"
import type { CardBrand } from "../domain/card.ts"

export type { AntifraudAnalysis } from "../domain/antifraud.ts"

/**
 * One card charge as the antifraud sees it (CONTRACT-v1 §9). The PAN itself travels only so that an
 * adapter can key its velocity counters by a keyed digest of it; no adapter stores or logs it.
 */
export interface AntifraudRequest {
  readonly accountId: AccountId
  readonly transactionId: TransactionId
  readonly amount: number
  readonly pan: string
  readonly bin: string
  readonly last4: string
  readonly brand: CardBrand
  readonly holderName: string
  /** The buyer: the v1 `customer`, or the v2 order's customer. Null fields are unknown. */
  readonly buyer: {
    readonly name: string | null
    readonly email: string | null
    readonly document: string | null
    readonly ip: string | null
    readonly birthdate: string | null
  }
}

export class Antifraud extends Context.Tag("Antifraud")<
  Antifraud,
  {
    readonly assess: (request: AntifraudRequest) => Effect.Effect<AntifraudAnalysis>
  }
>() {}

/**
 * What the rules engine needs from storage: velocity counters bumped atomically (one count per charge,
 * whatever the concurrency) and the account's usual card amount.
 */
export class AntifraudSignals extends Context.Tag("AntifraudSignals")<
  AntifraudSignals,
  {
    /**
     * Counts one more charge for (account, kind, key) in the fixed window `bucket` and returns the count
     * after it: concurrent calls see distinct counts.
     */
    readonly bump: (
      accountId: AccountId,
      kind: "card" | "document",
      key: string,
      window: { readonly bucket: number; readonly endsAt: Date }
    ) => Effect.Effect<number>
    /** Deletes the counters of windows that ended before `before`; how many. */
    readonly deleteExpired: (before: Date) => Effect.Effect<number>
    /** The account's most recent paid card charges (at most 100): how many, and their average amount. */
    readonly usualCardAmount: (
      accountId: AccountId
    ) => Effect.Effect<{ readonly count: number; readonly average: number }>
  }
>() {}
