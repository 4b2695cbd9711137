import { Context, type Effect } from "effect"
import type { ReceivedPixOutcome } from "./ReceivedPixRepo.ts"
import type { SecondPaymentStatus } from "./SecondPaymentRepo.ts"

/** A PIX received that an operator looks at: neither settled nor `returned` (counted as its second payment). */
export type PixException = Exclude<ReceivedPixOutcome, "settled" | "returned">

/** How many of one kind wait, and for how long the oldest has (seconds, by the database's clock; 0 when none). */
export interface Waiting {
  readonly count: number
  readonly oldestAgeSeconds: number
}

/**
 * What waits for an operator, every tenant's, as the shared database holds it now: the PIX received that did
 * not settle their charge, by outcome (neither `settled` nor `returned`, a second PIX that its bolepix second
 * payment stands for); the bolepix second payments not yet given back, by status; the CNAB retornos held
 * out of sequence; the card refunds whose outcome is unknown. Kinds with nothing waiting are absent.
 */
export class OperatorQueueReads extends Context.Tag("OperatorQueueReads")<
  OperatorQueueReads,
  {
    readonly waiting: Effect.Effect<{
      readonly pixReceived: ReadonlyArray<Waiting & { readonly outcome: PixException }>
      readonly secondPayments: ReadonlyArray<Waiting & { readonly status: Exclude<SecondPaymentStatus, "returned"> }>
      /** Boleto payments the bank reported and the gateway did not apply, `to_return` (docs/boleto.md). */
      readonly boletoPaymentsToReturn: Waiting
      readonly heldRetornos: Waiting
      /** Card charges PROCESSING, worked on by no request, over five minutes: outcome unknown (`charges pending`). */
      readonly cardCharges: Waiting
      /** Card refunds PENDING for over five minutes: undecided at the acquirer (docs/providers.md "Known limits"). */
      readonly cardRefunds: Waiting
      /** PIX refunds PENDING for over five minutes: the PSP has not decided, `reconcile_pix` keeps asking. */
      readonly pixRefunds: Waiting
    }>
  }
>() {}
