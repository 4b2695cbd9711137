import { Data, Either } from "effect"
import { afterWonDispute, type PaymentMethod, type TransactionStatus } from "./transaction.ts"

/**
 * What can happen to a transaction after it was created. Every status change of the core is one of
 * these, checked against TRANSITIONS (docs/architecture.md: one lifecycle).
 */
export type Trigger =
  | "submit" // the buyer sent the card on the hosted form (a card charge created without one)
  | "capture" // the acquirer approved a card charge
  | "decline" // the acquirer or the antifraud refused it
  | "fail" // the acquirer could not answer
  | "review" // the antifraud wants a person to look at it
  | "approve" // the review approved it: the charge goes to the acquirer
  | "pay" // the buyer paid a PIX or boleto
  | "expire" // the deadline passed unpaid (v2: FAILED)
  | "cancel" // the deadline passed unpaid (v1: CANCELLED, "before confirmation")
  | "refund_partial"
  | "refund_full"
  | "chargeback_open"
  | "chargeback_lost"
  | "chargeback_won"
  | "med_open"
  | "med_analysis"
  | "med_lost"
  | "med_won"

export const TRIGGERS: ReadonlyArray<Trigger> = [
  "submit",
  "capture",
  "decline",
  "fail",
  "review",
  "approve",
  "pay",
  "expire",
  "cancel",
  "refund_partial",
  "refund_full",
  "chargeback_open",
  "chargeback_lost",
  "chargeback_won",
  "med_open",
  "med_analysis",
  "med_lost",
  "med_won"
]

interface Rule {
  readonly from: ReadonlyArray<TransactionStatus>
  readonly to: TransactionStatus
  readonly methods: ReadonlyArray<PaymentMethod>
}

const PAID: ReadonlyArray<TransactionStatus> = ["CAPTURED", "PAID", "PARTIAL_REFUND"]
const ANY: ReadonlyArray<PaymentMethod> = ["PIX", "BOLETO", "CARD"]

/**
 * The transition table (interface-v2 "States and transitions", CONTRACT §7, CONTRACT-v1 §2, §9, §10).
 * A refund may follow a partial one; a won dispute returns the transaction to PAID (v1 `paid`).
 */
export const TRANSITIONS: Readonly<Record<Trigger, Rule>> = {
  submit: { from: ["PENDING"], to: "PROCESSING", methods: ["CARD"] },
  capture: { from: ["PROCESSING"], to: "CAPTURED", methods: ["CARD"] },
  decline: { from: ["PROCESSING", "ANTIFRAUD"], to: "DECLINED", methods: ["CARD"] },
  fail: { from: ["PROCESSING"], to: "FAILED", methods: ["CARD"] },
  review: { from: ["PROCESSING"], to: "ANTIFRAUD", methods: ["CARD"] },
  approve: { from: ["ANTIFRAUD"], to: "PROCESSING", methods: ["CARD"] },
  pay: { from: ["PENDING"], to: "PAID", methods: ["PIX", "BOLETO"] },
  expire: { from: ["PENDING"], to: "FAILED", methods: ["PIX", "BOLETO"] },
  cancel: { from: ["PENDING"], to: "CANCELLED", methods: ["PIX", "BOLETO"] },
  refund_partial: { from: PAID, to: "PARTIAL_REFUND", methods: ANY },
  refund_full: { from: PAID, to: "REFUNDED", methods: ANY },
  chargeback_open: { from: PAID, to: "PRE_CHARGEBACK", methods: ["CARD"] },
  chargeback_lost: { from: ["PRE_CHARGEBACK"], to: "CHARGEBACK", methods: ["CARD"] },
  chargeback_won: { from: ["PRE_CHARGEBACK"], to: "PAID", methods: ["CARD"] },
  med_open: { from: PAID, to: "MED_RECEIVED", methods: ["PIX"] },
  med_analysis: { from: ["MED_RECEIVED"], to: "MED_ANALYSIS", methods: ["PIX"] },
  med_lost: { from: ["MED_RECEIVED", "MED_ANALYSIS"], to: "MED_REPROVED", methods: ["PIX"] },
  med_won: { from: ["MED_RECEIVED", "MED_ANALYSIS"], to: "PAID", methods: ["PIX"] }
}

/** A status change the table does not allow (a sandbox call or a job in the wrong state). */
export class IllegalTransition extends Data.TaggedError("IllegalTransition")<{
  readonly trigger: Trigger
  readonly from: TransactionStatus
  readonly method: PaymentMethod
}> {
  override get message() {
    return `a ${this.method} transaction in ${this.from} cannot ${this.trigger.replace("_", " ")}`
  }
}

/** The status `trigger` moves a transaction to, or why it cannot. Pure: the table is the whole rule. */
export const transition = (
  status: TransactionStatus,
  method: PaymentMethod,
  trigger: Trigger
): Either.Either<TransactionStatus, IllegalTransition> => {
  const rule = TRANSITIONS[trigger]
  return rule.from.includes(status) && rule.methods.includes(method)
    ? Either.right(rule.to)
    : Either.left(new IllegalTransition({ trigger, from: status, method }))
}

/**
 * The status `trigger` moves transaction `t` to: the table's, except that a won dispute returns the
 * transaction to what its refunds made it (the table's `PAID` when there were none).
 */
export const destination = (
  t: {
    readonly status: TransactionStatus
    readonly method: PaymentMethod
    readonly amountTotal: number
    readonly refundedAmount: number
  },
  trigger: Trigger
): Either.Either<TransactionStatus, IllegalTransition> =>
  Either.map(transition(t.status, t.method, trigger), (to) =>
    trigger === "chargeback_won" || trigger === "med_won" ? afterWonDispute(t.amountTotal, t.refundedAmount) : to
  )
