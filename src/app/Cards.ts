import type { AccountId, CustomerId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { NotFound, Unprocessable } from "../domain/errors.ts"
import type { RawCard } from "../domain/payment.ts"
import { Acquirer, type DeclineCode } from "../ports/Acquirer.ts"
import { CardVault } from "../ports/CardVault.ts"
import { CustomerRepo } from "../ports/CustomerRepo.ts"
import { fn } from "../spans.ts"

/** A card to vault for a customer, already checked (Luhn, brand, expiry, CVV) by the interface that decoded it. */
export interface TokenizeCommand {
  readonly customerId: CustomerId
  readonly card: RawCard
}

/**
 * What the merchant reads when the acquirer refuses a card at its verification, one fixed text per decline
 * code. The acquirer's own text is not passed on: a Cielo or an e.Rede (or a proxy in front of one) may
 * repeat the card's number or its CVV in it, and the answer, its request log line and the spans are the
 * gateway's own copies, which never hold card data (docs/decisions.md "Card data in the gateway's copies").
 */
const REJECTED: Record<DeclineCode, string> = {
  card_declined: "card data rejected: the acquirer did not verify the card",
  insufficient_funds: "card data rejected: the acquirer reported insufficient funds",
  expired_card: "card data rejected: the card has expired",
  incorrect_cvc: "card data rejected: the security code is incorrect",
  fraud_suspected: "card data rejected: the acquirer suspects fraud"
}

const customerNotFound = () => new NotFound({ message: "customerId not found" })

/**
 * Tokenization: the card is verified with the acquirer (expiry, CVV),
 * then vaulted for one customer of the account. The CVV is used for that check and dropped.
 */
export class Cards extends Effect.Service<Cards>()("Cards", {
  effect: Effect.gen(function* () {
    const customers = yield* CustomerRepo
    const vault = yield* CardVault
    const acquirer = yield* Acquirer
    return {
      tokenize: fn("Cards.tokenize")(function* (accountId: AccountId, request: TokenizeCommand) {
        const { card } = request
        if (Option.isNone(yield* customers.find(accountId, request.customerId))) return yield* customerNotFound()
        const verification = yield* acquirer.verify(card).pipe(
          Effect.catchTag("AcquirerUnavailable", () =>
            Effect.fail(
              new Unprocessable({
                code: "processing_error",
                message: "the card could not be verified now; try again"
              })
            )
          )
        )
        if (verification._tag === "Rejected") {
          return yield* new Unprocessable({
            code: verification.code,
            message: REJECTED[verification.code]
          })
        }
        const { cvv: _, ...storable } = card
        // The vault stores it only while the customer is live: one deleted during the verification answers as
        // one deleted before (its saved cards leave the vault, CustomerRepo `softDelete`).
        const stored = yield* vault.store(accountId, request.customerId, card.brand, storable)
        if (Option.isNone(stored)) return yield* customerNotFound()
        return { cardToken: stored.value.token }
      })
    }
  })
}) {}
