import type { Page, PageRange } from "./Page.ts"
import type { AccountId } from "../domain/ids.ts"
import { Context, type Effect } from "effect"
import type { Balance, Entry, Party, Posting, RefundsTaken, StatementPostingType } from "../domain/ledger.ts"

export type Balances = Readonly<Record<Balance, number>>

export interface BalanceView extends Balances {
  /** When the latest posting moved it; null before any. */
  readonly updatedAt: Date | null
}

export interface PostingRecord {
  readonly id: string
  readonly party: Party
  readonly book: Balance
  readonly type: StatementPostingType
  readonly amount: number
  readonly transactionId: string | null
  readonly withdrawalId: string | null
  readonly description: string
  readonly createdAt: Date
}

export interface StatementFilter {
  readonly party: Party
  readonly from: Date
  /** Exclusive. */
  readonly before: Date
  readonly type?: StatementPostingType | undefined
}

/**
 * A party whose balance row differs from the sum of its postings, an entry that does not balance, or a
 * transaction or refund whose record differs from the postings that paid it.
 */
export interface Discrepancy {
  readonly accountId: string
  readonly what: string
  readonly expected: number
  readonly actual: number
}

/**
 * The journal of CONTRACT-v1 §7: append-only entries of postings that sum to zero, and each party's
 * balances. Called inside the database transaction of the change that causes the movement.
 */
export class Ledger extends Context.Tag("Ledger")<
  Ledger,
  {
    /** Writes the entry once: false when an entry with its key was already written (a retry). */
    readonly post: (accountId: AccountId, entry: Entry) => Effect.Effect<boolean>
    /** The postings of the entry written under `key` (none when there is no such entry). */
    readonly entryPostings: (accountId: AccountId, key: string) => Effect.Effect<ReadonlyArray<Posting>>
    /**
     * What the refunds of a transaction have taken so far: each recipient's `refund` postings (not the
     * merchant's) and the fee returned, over its `refund:` entries net of their reversals (ledger.ts
     * `refundShares`).
     */
    readonly refundsTaken: (accountId: AccountId, transactionId: string) => Effect.Effect<RefundsTaken>
    /** Whether an entry with this key exists. */
    readonly posted: (accountId: AccountId, key: string) => Effect.Effect<boolean>
    /**
     * Locks the balances of the parties until the database transaction ends, in one fixed order so
     * that two movements never wait on each other crosswise, and reads them.
     */
    readonly lock: (accountId: AccountId, parties: ReadonlyArray<Party>) => Effect.Effect<ReadonlyMap<Party, Balances>>
    readonly balance: (accountId: AccountId, party: Party) => Effect.Effect<BalanceView>
    /** One party's postings in a period, oldest first, and how many match in all. */
    readonly statement: (
      accountId: AccountId,
      filter: StatementFilter,
      range: PageRange
    ) => Effect.Effect<Page<PostingRecord>>
    /**
     * Recomputes every balance from the postings and every entry's sum, and compares each transaction's
     * refunded amount, fee returned and dispute holds, and each refund row, with the postings behind
     * them (docs/money.md "The books check"): empty when the books are right.
     */
    readonly check: Effect.Effect<ReadonlyArray<Discrepancy>>
  }
>() {}
