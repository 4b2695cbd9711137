/**
 * How long a card refund stays PENDING before it is an operator's to conclude (docs/operations.md
 * "card_refund_unknown"): until then it may be a request still waiting for its acquirer (its timeout is far
 * shorter), so it is neither counted in the operator queue, nor listed by `refunds pending`, nor concludable
 * by `refunds conclude` (an operator's "not refunded" racing the acquirer's late "refunded" would book the
 * refund FAILED while the buyer has it). One figure for the three.
 */
export const UNDECIDED_REFUND_AGE = "interval '5 minutes'"
