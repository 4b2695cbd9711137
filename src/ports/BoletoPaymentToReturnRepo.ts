import { Context, type Effect, type Option } from "effect"
import type { AccountId, TransactionId } from "../domain/ids.ts"

/** to_return: the payer's money, owed back; returned: given back by hand (docs/boleto.md). */
export type BoletoPaymentToReturnStatus = "to_return" | "returned"

/**
 * A payment a bank reported (CNAB 06/17) that the gateway did not apply (docs/boleto.md "Payments the gateway
 * does not apply"): one per occurrence, keyed as its bank fee is (nosso número, code, day).
 */
export interface BoletoPaymentToReturn {
  readonly id: string
  /** The title's tenant and transaction; both null for a nosso número that is no title of ours. */
  readonly accountId: AccountId | null
  readonly transactionId: TransactionId | null
  readonly ourNumber: string
  readonly code: string
  /** The day the payer paid (the occurrence's), São Paulo; null when the bank's line carries none. */
  readonly occurredOn: string | null
  /** What the payer paid, centavos. */
  readonly amount: number
  /** The retorno and line that reported it. */
  readonly fileNumber: number
  readonly line: number
  /** Why it was not applied, in words. */
  readonly reason: string
  readonly status: BoletoPaymentToReturnStatus
  readonly createdAt: Date
  readonly returnedAt: Date | null
}

export class BoletoPaymentToReturnRepo extends Context.Tag("BoletoPaymentToReturnRepo")<
  BoletoPaymentToReturnRepo,
  {
    /**
     * Records it `to_return` in the caller's database transaction: false when this occurrence (nosso número,
     * code, day) was recorded already — the bank repeating its report.
     */
    readonly record: (
      payment: Omit<BoletoPaymentToReturn, "status" | "createdAt" | "returnedAt">
    ) => Effect.Effect<boolean>
    /** Every tenant's still `to_return`, oldest first: the operator's list. */
    readonly open: (limit: number) => Effect.Effect<ReadonlyArray<BoletoPaymentToReturn>>
    /** Locks one in the caller's database transaction (the operator names it by id; anything not a UUID: none). */
    readonly findForUpdate: (id: string) => Effect.Effect<Option.Option<BoletoPaymentToReturn>>
    readonly setReturned: (id: string) => Effect.Effect<void>
  }
>() {}
