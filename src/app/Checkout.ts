import { Clock, Effect, Option } from "effect"
import { checkoutView } from "../domain/checkout.ts"
import { NotFound } from "../domain/errors.ts"
import { saoPauloDate } from "../domain/time.ts"
import { PublicDocuments } from "../ports/PublicDocuments.ts"
import { fn } from "../spans.ts"

/** The buyer's hosted checkout page (CONTRACT-v1 §6): its unguessable token is the only credential. */
export class Checkout extends Effect.Service<Checkout>()("Checkout", {
  effect: Effect.gen(function* () {
    const documents = yield* PublicDocuments
    return {
      view: fn("Checkout.view")(function* (token: string) {
        const found = yield* documents.findWithMerchant(token, "checkout")
        if (Option.isNone(found)) return yield* new NotFound({ message: "checkout not found" })
        const today = saoPauloDate(new Date(yield* Clock.currentTimeMillis))
        return checkoutView(found.value.merchant.name, found.value.transaction, today)
      })
    }
  })
}) {}
