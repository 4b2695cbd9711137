import { Clock, Effect, Either, Option } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { detectBrand } from "../domain/card.ts"
import { checkoutView } from "../domain/checkout.ts"
import { NotFound, ValidationFailed } from "../domain/errors.ts"
import { checkRawCard } from "../domain/payment.ts"
import { saoPauloDate } from "../domain/time.ts"
import { Tenancy } from "../ports/Modes.ts"
import { PublicDocuments } from "../ports/PublicDocuments.ts"
import { fn } from "../spans.ts"
import { Payments } from "./Payments.ts"

/** What the buyer types on the hosted card form (docs/checkout.md "Hosted card form"). */
export interface HostedCardInput {
  readonly holder_name: string
  readonly number: string
  readonly exp_month: string
  readonly exp_year: string
  readonly cvv: string
  /** The plan the buyer chose; absent, the charge's own (docs/checkout.md "Hosted card form"). */
  readonly installments?: number | undefined
}

/** The buyer's hosted checkout page (CONTRACT-v1 §6): its unguessable token is the only credential. */
export class Checkout extends Effect.Service<Checkout>()("Checkout", {
  effect: Effect.gen(function* () {
    const documents = yield* PublicDocuments
    const payments = yield* Payments
    const tenancy = yield* Tenancy
    const rules = (yield* AppConfig).installments
    const today = Effect.map(Clock.currentTimeMillis, (ms) => saoPauloDate(new Date(ms)))
    const find = (token: string) =>
      Effect.flatMap(documents.findWithMerchant(token, "checkout"), (found) =>
        Option.isNone(found)
          ? Effect.fail(new NotFound({ message: "checkout not found" }))
          : Effect.succeed(found.value)
      )
    return {
      view: fn("Checkout.view")(function* (token: string) {
        const found = yield* find(token)
        return checkoutView(found.merchant.name, found.transaction, yield* today, rules)
      }),
      /**
       * The card typed on the hosted form goes to the gateway only (PCI SAQ-A for the merchant): checked by
       * the same rules as an API card, then charged by Payments.payHosted; the page's new view.
       */
      payByCard: fn("Checkout.payByCard")(function* (token: string, input: HostedCardInput) {
        const found = yield* find(token)
        const number = input.number.replace(/[\s-]/g, "")
        const card = checkRawCard(
          {
            holderName: ["holder_name", input.holder_name.trim()],
            number: ["number", number],
            expMonth: ["exp_month", input.exp_month],
            // The form asks for the year as printed, YYYY or YY; the card rules read YY.
            expYear: ["exp_year", /^20\d{2}$/.test(input.exp_year) ? input.exp_year.slice(2) : input.exp_year],
            cvv: ["cvv", input.cvv],
            // The brand is the number's (the form shows it as the buyer types); no separate field.
            brand: ["number", detectBrand(number) ?? "unknown"]
          },
          new Date(yield* Clock.currentTimeMillis)
        )
        if (Either.isLeft(card)) return yield* new ValidationFailed({ errors: card.left })
        const { cvv, ...rest } = card.right
        // The buyer has no key: the charge runs in the mode of the transaction's tenant (its rails).
        const after = yield* payments
          .payHosted(found.merchant.accountId, found.transaction.id, { ...rest, cvv }, input.installments)
          .pipe(Effect.provideService(Tenancy, tenancy), Tenancy.within(found.merchant.accountId))
        return checkoutView(found.merchant.name, after, yield* today, rules)
      })
    }
  })
}) {}
