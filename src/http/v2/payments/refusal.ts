import { Effect } from "effect"
import { Unprocessable } from "../../../domain/errors.ts"
import type { TransactionRecord } from "../../../domain/transaction.ts"

const declineMessage = (code: string | null) => {
  switch (code) {
    case "insufficient_funds":
      return "the card has insufficient funds"
    case "expired_card":
      return "the card is expired"
    case "incorrect_cvc":
      return "the card's security code is incorrect"
    case "fraud_suspected":
      return "the charge was blocked by the antifraud analysis"
    default:
      return "the card was declined"
  }
}

/**
 * /api answers a declined or failed charge with 422 and its code (CONTRACT §7), naming the recorded
 * transaction; /public/v1 answers 201 with the transaction instead.
 */
export const refusedAs422 = (t: TransactionRecord): Effect.Effect<TransactionRecord, Unprocessable> =>
  t.status === "DECLINED"
    ? Effect.fail(
        new Unprocessable({
          code: t.declineCode ?? "card_declined",
          message: declineMessage(t.declineCode),
          transactionId: t.id
        })
      )
    : t.status === "FAILED"
      ? Effect.fail(
          new Unprocessable({
            code: "processing_error",
            message: "the acquirer could not process the charge; the transaction is FAILED, try again",
            transactionId: t.id
          })
        )
      : Effect.succeed(t)
