import type { AccountId, CustomerId } from "../domain/ids.ts"
import { Effect, Option } from "effect"
import { NotFound, Unprocessable } from "../domain/errors.ts"
import type { RawCard } from "../domain/payment.ts"
import { Acquirer } from "../ports/Acquirer.ts"
import { CardVault } from "../ports/CardVault.ts"
import { CustomerRepo } from "../ports/CustomerRepo.ts"
import { fn } from "../spans.ts"

/** A card to vault for a customer, already checked (Luhn, brand, expiry, CVV) by the interface that decoded it. */
export interface TokenizeCommand {
  readonly customerId: CustomerId
  readonly card: RawCard
}

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
        if (Option.isNone(yield* customers.find(accountId, request.customerId))) {
          return yield* new NotFound({ message: "customerId not found" })
        }
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
            message: `card data rejected: ${verification.message}`
          })
        }
        const { cvv: _, ...storable } = card
        const stored = yield* vault.store(accountId, request.customerId, card.brand, storable)
        return { cardToken: stored.token }
      })
    }
  })
}) {}
