import type { AccountId, TransactionId } from "../domain/ids.ts"
import { Clock, Effect, Option } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { Acquirer } from "../ports/Acquirer.ts"
import { PixProvider } from "../ports/PixProvider.ts"
import { PixInbox } from "../ports/ReceivedPixRepo.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { inMode, Tenancy } from "../ports/Modes.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { fn } from "../spans.ts"

const BATCH = 100
/**
 * How far back each PIX poll looks. Polled every minute, a payment whose notice was lost is settled within
 * about a minute of being paid; the overlap covers a worker that missed runs and a PSP's listing lag
 * (docs/providers.md "Reconciliation").
 */
export const PIX_WINDOW_MS = 30 * 60_000

/**
 * How close to its expiry a PENDING PIX charge is asked about by itself (`GET /cob/{txid}`): a payment the
 * listing missed (a lost notice and a PSP's listing lag, or the listing down) is settled before the charge
 * expires rather than by the expiry's withdrawal. Five minutes: about five runs of the minute's poll, for a
 * handful of calls per run (docs/providers.md "Reconciliation").
 */
export const PIX_NEAR_EXPIRY_MS = 5 * 60_000

/**
 * The reconciliation job: card charges left in PROCESSING by a process that died between asking the
 * acquirer and recording its answer are settled by asking the acquirer what it did with that
 * idempotency key, instead of blocking their order until a retry comes.
 */
export class Reconciliation extends Effect.Service<Reconciliation>()("Reconciliation", {
  effect: Effect.gen(function* () {
    const transactions = yield* TransactionRepo
    const acquirer = yield* Acquirer
    const lifecycle = yield* Lifecycle
    const tenancy = yield* Tenancy
    const pix = yield* PixProvider
    const inbox = yield* PixInbox
    const tx = yield* Transactional
    const config = yield* AppConfig

    const settle = fn("Reconciliation.settle")(function* (accountId: AccountId, id: TransactionId, stuckSince: Date) {
      const t = yield* transactions.find(accountId, id)
      const status = yield* acquirer.status(id, t._tag === "Some" ? t.value.acquirer : null)
      switch (status._tag) {
        case "Approved": {
          const card = t._tag === "Some" ? t.value.details.card : undefined
          return yield* lifecycle.move(accountId, id, "capture", {
            paidAt: new Date(yield* Clock.currentTimeMillis),
            acquirerReference: status.acquirerReference,
            ...(status.acquirer === undefined ? {} : { acquirer: status.acquirer }),
            ...(card ? { details: { card: { ...card, authorizationCode: status.authorizationCode } } } : {})
          })
        }
        case "Declined":
          return yield* lifecycle.move(accountId, id, "decline", { declineCode: status.code })
        case "NotReceived":
          // The acquirer never saw it: nothing was charged, unless a retry with the charge's
          // Idempotency-Key resumed it meanwhile and is sending it now (Payments.chargeCard marks it
          // first). Checked under the row's lock: such a charge is that retry's to settle.
          return yield* tx.run(
            Effect.gen(function* () {
              const found = yield* transactions.findForUpdate(accountId, id)
              if (Option.isNone(found) || found.value.status !== "PROCESSING") return
              if (found.value.updatedAt.getTime() >= stuckSince.getTime()) return
              return yield* lifecycle.apply(accountId, found.value, "fail", { declineCode: "processing_error" })
            })
          )
      }
    })

    return {
      /**
       * The PSP's list of payments received lately, each handed to the inbox as a notice would be: one
       * already settled by its notice is a duplicate there and changes nothing.
       */
      reconcilePix: fn("Reconciliation.reconcilePix")(function* () {
        const now = yield* Clock.currentTimeMillis
        // The PSP's account is the deployment's live one: test mode's sandbox receives nothing to poll.
        const listed = yield* pix.receivedPayments({ from: new Date(now - PIX_WINDOW_MS), to: new Date(now) }).pipe(
          // Listed by the live PSP, they pay live charges only (PixInbox).
          Effect.flatMap((payments) => inbox.receive(payments, "reconciliation")),
          inMode("live"),
          // The PSP down: the next minute's run asks again over the same window.
          Effect.catchAll((e) =>
            Effect.as(Effect.logWarning("PIX payments not reconciled", { reason: e._tag }), {
              settled: 0,
              duplicates: 0,
              exceptions: 0
            })
          )
        )
        // Live charges about to expire, each asked of its tenant's PSP: a payment found settles through
        // the same inbox (a duplicate of one the listing settled changes nothing).
        const expiring = yield* transactions.pixNearExpiry(new Date(now), new Date(now + PIX_NEAR_EXPIRY_MS), BATCH)
        let settled = listed.settled
        for (const charge of expiring) {
          if (charge.txid === null) continue
          const counts = yield* pix.chargeStatus(charge.txid).pipe(
            Effect.flatMap((state) =>
              state.status === "PAID"
                ? inbox.receive(state.payments, "reconciliation")
                : Effect.succeed({ settled: 0, duplicates: 0, exceptions: 0 })
            ),
            Tenancy.within(charge.accountId),
            Effect.provideService(Tenancy, tenancy),
            // The PSP down: the next minute's run asks again, and the expiry's withdrawal reads it last.
            Effect.catchAll((e) =>
              Effect.as(Effect.logWarning("PIX charge near expiry not asked", { reason: e._tag }), {
                settled: 0,
                duplicates: 0,
                exceptions: 0
              })
            )
          )
          settled += counts.settled
        }
        return { ...listed, settled }
      }),
      reconcile: fn("Reconciliation.reconcile")(function* () {
        // Not marked for this long (Payments.authorize marks a charge it is sending): its process is lost.
        const olderThan = new Date((yield* Clock.currentTimeMillis) - config.reconcileStuckAfterSeconds * 1000)
        const stuck = yield* transactions.stuckProcessing(olderThan, BATCH)
        let settled = 0
        for (const { accountId, id } of stuck) {
          // A retry may have settled it meanwhile (IllegalTransition), or the acquirer may be down:
          // the next run asks again.
          // Each charge is asked of the acquirer of its tenant's mode.
          yield* settle(accountId, id, olderThan).pipe(
            Tenancy.within(accountId),
            Effect.provideService(Tenancy, tenancy),
            Effect.tap(() => Effect.sync(() => settled++)),
            Effect.catchAll((e) => Effect.logWarning("charge not reconciled", { id, reason: e._tag }))
          )
        }
        return settled
      })
    }
  })
}) {}
