import { Context, Data, type Effect, type Option } from "effect"
import type { AccountId, TransactionId } from "../domain/ids.ts"

/**
 * What a bank's settlement file says of one title (docs/providers.md "Boleto: banks by CNAB 240"), in the
 * domain's words: registered, rejected, paid, written off, a fee alone, or something else the gateway
 * records and does not act on.
 */
export type OccurrenceKind = "registered" | "rejected" | "paid" | "written_off" | "fee" | "other"

export interface BankOccurrence {
  /** The line of the file it was read from (1-based). */
  readonly line: number
  /** The bank's own occurrence code (CNAB 240: 02, 03, 06, 09, 17, 28…). */
  readonly code: string
  readonly kind: OccurrenceKind
  /** The title's tenant and transaction; both null when no title of ours matches the line. */
  readonly accountId: AccountId | null
  readonly transactionId: TransactionId | null
  readonly ourNumber: string
  /** Paid: what the buyer paid, the fine and interest together, the discount and abatement given. */
  readonly paid: number
  readonly charges: number
  readonly discount: number
  readonly abatement: number
  /** The bank's fee on this occurrence, centavos. */
  readonly fee: number
  /** The day of the occurrence (the buyer paid on it) and of the credit to the gateway's account. */
  readonly occurredOn: string | null
  readonly creditOn: string | null
  /** The bank's reasons (rejection reasons, the liquidation channel), each with its words. */
  readonly reasons: ReadonlyArray<string>
  /**
   * Its fee was posted already, when an earlier file reported this same occurrence (nosso número, code, day),
   * under the key fees had before they were keyed by their occurrence: that file's number and line.
   */
  readonly feePostedByLine: boolean
}

/** A settlement file read: its number in the bank's sequence, its digest, what it says, and what it could not. */
export interface BankReturnFile {
  readonly fileNumber: number
  readonly digest: string
  readonly occurrences: ReadonlyArray<BankOccurrence>
  /** Every line that could not be read or matched, with its number and why: none is dropped. */
  readonly rejected: ReadonlyArray<{ readonly line: number; readonly error: string }>
  /**
   * The paid lines (06/17) whose nosso número is no title of ours, each also among `rejected`: the bank holds
   * a payer's money for them, kept to return (docs/boleto.md "Payments the gateway does not apply").
   */
  readonly strayPayments: ReadonlyArray<StrayPayment>
}

/** A payment the bank reports for a nosso número that is no title of ours. */
export interface StrayPayment {
  readonly line: number
  readonly code: string
  readonly ourNumber: string
  readonly paid: number
  readonly occurredOn: string | null
}

export class BankFileUnreadable extends Data.TaggedError("BankFileUnreadable")<{ readonly message: string }> {}

export interface RemessaCut {
  readonly fileNumber: number
  readonly titles: number
  readonly path: string
}

/** What the gateway keeps of a settlement file it received. */
export interface ReceivedFile {
  readonly fileNumber: number
  readonly digest: string
  readonly status: "held" | "processed"
}

export type TitleState = "registered" | "rejected" | "paid" | "written_off"

/**
 * A bank that exchanges files with the gateway (CNAB 240 remessa and retorno): the titles queued by
 * `BoletoProvider.register` go out in one numbered file per cycle; the bank's files come back through a
 * watched directory, the CLI or an upload. Live mode only; `configured` is false without such a bank.
 */
export class BankFiles extends Context.Tag("BankFiles")<
  BankFiles,
  {
    readonly configured: boolean
    /** How often a remessa is cut and the watched directory is read. */
    readonly cycle: { readonly remessaEveryMs: number; readonly pollEveryMs: number }
    /** Whether the last remessa was cut a cycle ago or more (before the first: the oldest queued title waited one). */
    readonly remessaDue: Effect.Effect<boolean>
    /** Writes the queued titles in ONE numbered file; None when nothing was queued. */
    readonly cutRemessa: Effect.Effect<Option.Option<RemessaCut>>
    readonly read: (content: string) => Effect.Effect<BankReturnFile, BankFileUnreadable>
    /** The files waiting in the watched directory, oldest first. */
    readonly watched: Effect.Effect<ReadonlyArray<{ readonly name: string; readonly content: string }>>
    /** Moves a watched file aside once it is recorded (`processed/`, `held/` or `refused/`). */
    readonly moveAside: (name: string, to: "processed" | "held" | "refused") => Effect.Effect<void>
    /** The title's state as the bank's files left it (`queued`, `sent`, then a TitleState); None: no title. */
    readonly titleState: (accountId: AccountId, transactionId: TransactionId) => Effect.Effect<Option.Option<string>>
    readonly markTitle: (
      accountId: AccountId,
      transactionId: TransactionId,
      state: TitleState,
      details: { readonly reasons?: ReadonlyArray<string>; readonly paid?: number; readonly creditOn?: string | null }
    ) => Effect.Effect<void>
    /** The retorno log: serialises ingestions (inside a database transaction) and keeps each file. */
    readonly lockReceived: Effect.Effect<void>
    readonly received: (fileNumber: number) => Effect.Effect<Option.Option<ReceivedFile>>
    /** The NSA the next file must carry: one past the last processed, or the configured first. */
    readonly expectedNext: Effect.Effect<number>
    readonly hold: (file: BankReturnFile, content: string, source: string) => Effect.Effect<void>
    readonly heldContent: (fileNumber: number) => Effect.Effect<Option.Option<string>>
    readonly recordProcessed: (
      file: BankReturnFile,
      content: string,
      source: string,
      report: unknown
    ) => Effect.Effect<void>
  }
>() {}
