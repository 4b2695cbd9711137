import type { AccountId, PaymentLinkId, TransactionId } from "../domain/ids.ts"
import { Clock, Effect, Either, Option } from "effect"
import { NotFound, RateLimited, ValidationFailed } from "../domain/errors.ts"
import type { PaymentCommand } from "../domain/payment.ts"
import {
  changedLink,
  type LinkChanges,
  linkRefusal,
  linkUnavailable,
  type PaymentLinkRecord,
  type VisitChoice,
  type VisitTerms,
  visitTerms
} from "../domain/paymentLink.ts"
import { AppConfig } from "../config/AppConfig.ts"
import { AccountRepo } from "../ports/AccountRepo.ts"
import { secondsUntilReset } from "../ports/Admission.ts"
import { Tenancy } from "../ports/Modes.ts"
import type { PageRange } from "../ports/Page.ts"
import { type NewPaymentLink, type PaymentLinkFilter, PaymentLinkRepo } from "../ports/PaymentLinkRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { fn } from "../spans.ts"
import { Payments } from "./Payments.ts"
import { Transactions } from "./Transactions.ts"

const notFound = () => new NotFound({ message: "payment link not found" })

/**
 * The charge of a visit with these terms, decoded by the interface the buyer used under its own rules (the
 * page's: v1's, docs/payment-links.md "The buyer's page"); a broken field → ValidationFailed.
 */
export type VisitCharge = (terms: VisitTerms) => Effect.Effect<PaymentCommand, ValidationFailed>

/** The terms a visit charges on `link` as in this row, or a 400 naming each field of the choice it refuses. */
const termsOn = (link: PaymentLinkRecord, choice: VisitChoice) =>
  Either.mapLeft(visitTerms(link, choice), (errors) => new ValidationFailed({ errors }))

/** The account's link, or NotFound (another account's, or none). */
const found = <A, E>(read: Effect.Effect<Option.Option<A>, E>) =>
  Effect.flatMap(read, Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed }))

/**
 * The merchant's reusable payment links (issue 20 §4, docs/payment-links.md) and the buyer's visits:
 * each visit is a charge made by Payments in the link's tenant, whatever interface the link came from.
 */
export class PaymentLinks extends Effect.Service<PaymentLinks>()("PaymentLinks", {
  effect: Effect.gen(function* () {
    const repo = yield* PaymentLinkRepo
    const config = yield* AppConfig
    const accounts = yield* AccountRepo
    const payments = yield* Payments
    const transactions = yield* Transactions
    const tx = yield* Transactional
    const tenancy = yield* Tenancy

    const get = fn("PaymentLinks.get")(function* (accountId: AccountId, id: PaymentLinkId) {
      return yield* found(repo.find(accountId, id))
    })

    return {
      /** A valid new link (the interface checked the fields). */
      create: fn("PaymentLinks.create")(function* (accountId: AccountId, link: NewPaymentLink) {
        return yield* repo.insert(accountId, link)
      }),
      get,
      page: fn("PaymentLinks.page")(function* (accountId: AccountId, filter: PaymentLinkFilter, range: PageRange) {
        return yield* repo.page(accountId, filter, range)
      }),
      /** The link stops taking visits; its transactions stay as they are. Deactivating twice is harmless. */
      deactivate: fn("PaymentLinks.deactivate")(function* (accountId: AccountId, id: PaymentLinkId) {
        return yield* found(repo.setActive(accountId, id, false))
      }),
      /**
       * Undoes a deactivation: the same link, at the same address, takes visits again, its uses counted as
       * before. Only the merchant's switch: an expired or used-up link stays refused for that reason
       * (docs/payment-links.md "Deactivating and activating"). Activating an active link is harmless.
       */
      activate: fn("PaymentLinks.activate")(function* (accountId: AccountId, id: PaymentLinkId) {
        return yield* found(repo.setActive(accountId, id, true))
      }),
      /**
       * Changes what the page says and the link's limits (docs/payment-links.md "Editing a link"): read
       * under its row lock, so a visit taking a use meanwhile is counted before `max_uses` is checked
       * against the uses made; the broken fields → 400, another account's link → 404.
       */
      update: fn("PaymentLinks.update")(function* (accountId: AccountId, id: PaymentLinkId, changes: LinkChanges) {
        // Nothing asked: the link as it is, not written (its updated_at stays).
        if (Object.keys(changes).length === 0) return yield* get(accountId, id)
        return yield* tx.run(
          Effect.gen(function* () {
            const changed = changedLink(yield* found(repo.findForUpdate(accountId, id)), changes)
            if ("errors" in changed) return yield* new ValidationFailed({ errors: changed.errors })
            return yield* repo.save(accountId, changed.link)
          })
        )
      }),
      /** The transactions the link's visits created, newest first (404 for another account's link). */
      transactions: fn("PaymentLinks.transactions")(function* (
        accountId: AccountId,
        id: PaymentLinkId,
        range: PageRange
      ) {
        yield* get(accountId, id)
        return yield* transactions.page(accountId, { paymentLinkId: id }, range)
      }),
      /**
       * The link behind a buyer's URL with its merchant's name, and why it takes no visit now (null when
       * it does). Unknown → NotFound.
       */
      open: fn("PaymentLinks.open")(function* (id: PaymentLinkId) {
        const link = yield* found(repo.findPublic(id))
        const merchant = yield* accounts.findById(link.accountId)
        const now = new Date(yield* Clock.currentTimeMillis)
        return {
          link,
          merchantName: Option.match(merchant, { onNone: () => "", onSome: (m) => m.name }),
          refusal: linkRefusal(link, now)
        }
      }),
      /**
       * A buyer's visit: in one database transaction, one use of the link is taken by a conditional
       * update (docs/payment-links.md "Concurrency"), the charge is made as any v1 charge of the link's
       * tenant (its mode's rails), and the visit is recorded. A link that takes no more visits → 409
       * `payment_link_<why>`; a charge that fails rolls the use back. Before any of it, the visit takes a
       * slot of the link's rolling minute: past PAYMENT_LINK_VISITS_PER_MINUTE → 429, no use taken, nothing
       * made (docs/payment-links.md "Visits per minute": the page needs no key, so no key's limit applies).
       * The method, amount, installments, items and metadata charged are the row's the use was taken from,
       * under its lock: an edit committed since the link was read is what the buyer pays, a method it took
       * away a 400 with the use rolled back (docs/payment-links.md "Editing a link").
       */
      visit: fn("PaymentLinks.visit")(function* (
        id: PaymentLinkId,
        choice: VisitChoice,
        charge: VisitCharge,
        transactionId: TransactionId,
        from: string | undefined
      ) {
        const link = yield* found(repo.findPublic(id))
        const refusal = linkRefusal(link, new Date(yield* Clock.currentTimeMillis))
        if (refusal !== null) return yield* linkUnavailable(refusal)
        // The choice and the buyer checked against the link as read, so that a body refused by validation
        // takes no slot of the link's minute; the charge itself is decided again under the lock below.
        yield* charge(yield* termsOn(link, choice))
        const accountId = link.accountId
        // One buyer's address first, when that limit is set: a refused visit takes none of the link's slots,
        // so one script cannot use up the minute of every other buyer (docs/payment-links.md).
        if (Option.isSome(config.paymentLinkVisitsPerAddress) && from !== undefined) {
          const mine = yield* repo.takeAddressVisitSlot(link.id, from, config.paymentLinkVisitsPerAddress.value)
          if (!mine.allowed) {
            const retryAfterSeconds = secondsUntilReset(mine)
            return yield* new RateLimited({
              code: "payment_link_rate_limited",
              message:
                `this link takes at most ${mine.limit} visits a minute from one address; ` +
                `retry in ${retryAfterSeconds} s`,
              retryAfterSeconds
            })
          }
        }
        const slot = yield* repo.takeVisitSlot(link.id, config.paymentLinkVisitsPerMinute)
        if (!slot.allowed) {
          const retryAfterSeconds = secondsUntilReset(slot)
          return yield* new RateLimited({
            code: "payment_link_rate_limited",
            message: `this link takes at most ${slot.limit} visits a minute; retry in ${retryAfterSeconds} s`,
            retryAfterSeconds
          })
        }
        return yield* tx
          .run(
            Effect.gen(function* () {
              const taken = yield* repo.takeUse(accountId, link.id)
              if (Option.isNone(taken)) {
                const now = new Date(yield* Clock.currentTimeMillis)
                const current = yield* repo.find(accountId, link.id)
                const why = Option.isNone(current) ? "inactive" : (linkRefusal(current.value, now) ?? "expired")
                return yield* linkUnavailable(why)
              }
              // The link as it is now, locked until this visit commits: its terms, not the first read's, are
              // charged; a refusal here fails the transaction and so gives the use back.
              const command = yield* charge(yield* termsOn(taken.value, choice))
              const created = yield* payments.charge(accountId, command, transactionId, true)
              yield* repo.recordVisit(accountId, link.id, created.id, taken.value.maxInstallments)
              return created
            })
          )
          .pipe(Effect.provideService(Tenancy, tenancy), Tenancy.within(accountId))
      })
    }
  })
}) {}
