import { Context, type Effect } from "effect"
import type { ChargeTerms } from "../domain/chargeTerms.ts"
import type { ProviderUnavailable } from "../domain/errors.ts"

export interface BoletoRequest {
  /** The tenant the boleto is for: a bank adapter that queues titles keeps them by account. */
  readonly accountId: string
  /** Our transaction id; the bank's "nosso número" is derived from it (idempotent). */
  readonly transactionId: string
  readonly amount: number
  /** YYYY-MM-DD */
  readonly dueDate: string
  /**
   * YYYY-MM-DD, the last day the payer may pay ("Não receber após", printed on the slip): the due date or
   * the next business day, plus BOLETO_LATE_DAYS with a fine or interest (docs/boleto.md). A bank writes
   * the title off after it, not before.
   */
  readonly lastPayableDay: string
  readonly payerName: string
  readonly payerDocument: string
  /** Fine, interest, discounts and abatement to register with the bank (docs/boleto.md). */
  readonly terms?: ChargeTerms | undefined
}

export interface RegisteredBoleto {
  readonly bankCode: string
  readonly bankName: string
  /** 44 digits (FEBRABAN). */
  readonly barcode: string
  /** 47 digits. */
  readonly digitableLine: string
  readonly ourNumber: string
}

export interface BoletoSettlement {
  readonly transactionId: string
  /** What the buyer paid, with any fine and interest, less any discount and abatement (docs/boleto.md). */
  readonly amount: number
  readonly paidAt: Date
  /** The day the buyer paid (São Paulo, YYYY-MM-DD), when the bank says; otherwise paidAt's day. */
  readonly paidOn?: string | null | undefined
}

/** A bank that registers boletos and reports which were paid (its settlement file or API). */
export class BoletoProvider extends Context.Tag("BoletoProvider")<
  BoletoProvider,
  {
    readonly register: (request: BoletoRequest) => Effect.Effect<RegisteredBoleto, ProviderUnavailable>
    /**
     * Slips settled by the bank, among those given (the pending ones): each at most once, with what the bank took
     * and the day. A question, not a queue: asked again, the same answer. A bank that reports its payments by
     * settlement file instead (the BankFiles port: bb-cnab240's retorno, settled as it is read) answers none here,
     * so that a payment comes by one of the two, never both (docs/providers.md "Boleto: banks by CNAB 240").
     */
    readonly settlements: (
      transactionIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<BoletoSettlement>, ProviderUnavailable>
  }
>() {}

/** The sandbox bank's side door: records a payment as if the buyer had paid at a bank. */
export class SandboxBank extends Context.Tag("SandboxBank")<
  SandboxBank,
  {
    readonly pay: (transactionId: string, amount: number, paidOn?: string) => Effect.Effect<void>
    /** Whether the bank has taken a payment of this slip (reported or not yet). */
    readonly holdsPaymentOf: (transactionId: string) => Effect.Effect<boolean>
  }
>() {}
