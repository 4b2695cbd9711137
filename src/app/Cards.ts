import { Clock, Effect, Either, Option } from "effect"
import { NotFound, Unprocessable, ValidationFailed } from "../domain/errors.ts"
import { checkRawCard } from "../domain/payment.ts"
import type { CardBrand } from "../domain/card.ts"
import { Acquirer } from "../ports/Acquirer.ts"
import { CardVault } from "../ports/CardVault.ts"
import { CustomerRepo } from "../ports/CustomerRepo.ts"

export interface TokenizeRequest {
  readonly customerId: string
  readonly holderName: string
  readonly cardNumber: string
  readonly brand: CardBrand
  readonly expirationMonth: string
  readonly expirationYear: string
  readonly securityCode: string
}

/**
 * POST /api/payment-gateway/tokenize-card: the card is verified with the acquirer (expiry, CVV),
 * then vaulted for one customer of the account. The CVV is used for that check and dropped.
 */
export class Cards extends Effect.Service<Cards>()("Cards", {
  effect: Effect.gen(function* () {
    const customers = yield* CustomerRepo
    const vault = yield* CardVault
    const acquirer = yield* Acquirer
    return {
      tokenize: Effect.fn("Cards.tokenize")(function* (accountId: string, request: TokenizeRequest) {
        const now = new Date(yield* Clock.currentTimeMillis)
        const card = yield* Either.match(
          checkRawCard(
            {
              holderName: ["holderName", request.holderName],
              number: ["cardNumber", request.cardNumber],
              expMonth: ["expirationMonth", request.expirationMonth],
              expYear: ["expirationYear", request.expirationYear],
              cvv: ["securityCode", request.securityCode],
              brand: ["brand", request.brand]
            },
            now
          ),
          { onLeft: (errors) => Effect.fail(new ValidationFailed({ errors })), onRight: Effect.succeed }
        )
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
