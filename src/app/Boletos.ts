import { Clock, Effect } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { BoletoProvider } from "../ports/BoletoProvider.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Settlement } from "./Settlement.ts"
import { Bolepix } from "./Bolepix.ts"
import { inMode, Tenancy } from "../ports/Modes.ts"
import type { Mode } from "../domain/mode.ts"
import { fn } from "../spans.ts"

const BATCH = 500

/**
 * The boleto confirmation job: asks the bank (BoletoProvider port) which pending slips it has
 * settled and marks them PAID. While slips are pending it runs again shortly; with none it stops.
 */
export class Boletos extends Effect.Service<Boletos>()("Boletos", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const provider = yield* BoletoProvider
    const transactions = yield* TransactionRepo
    const settlement = yield* Settlement
    const scheduler = yield* JobScheduler
    const tenancy = yield* Tenancy
    const bolepix = yield* Bolepix
    // Ask the bank about as often as it can have news (the sandbox's delay), at most once a minute apart.
    const pollMs = Math.min(60, Math.max(1, config.boletoConfirmationDelaySeconds)) * 1000

    return {
      // Every pending slip of every account is asked about, a page at a time, so that old unpaid
      // slips never hide newer paid ones.
      confirm: fn("Boletos.confirm")(function* () {
        let after: string | undefined
        let pendingLeft = 0
        let confirmed = 0
        for (;;) {
          const page = yield* transactions.pendingBoletos(BATCH, after)
          if (page.length === 0) break
          const owners = new Map(page.map((p) => [p.id as string, [p.accountId, p.id] as const]))
          // Each slip is asked of the bank of its tenant's mode (docs/decisions.md "Test and live modes").
          const byMode = new Map<Mode, Array<string>>()
          for (const p of page) {
            const mode = yield* tenancy.modeOf(p.accountId)
            byMode.set(mode, [...(byMode.get(mode) ?? []), p.id])
          }
          const settled = []
          for (const [mode, ids] of byMode) {
            // A bank outage is asked again at the next poll, like a slip it has no news of.
            const answer = yield* provider.settlements(ids).pipe(
              inMode(mode),
              Effect.catchTag("ProviderUnavailable", (e) =>
                Effect.as(Effect.logWarning("boleto provider unavailable", e.message), [])
              )
            )
            settled.push(...answer)
          }
          let failed = 0
          for (const slip of settled) {
            const owner = owners.get(slip.transactionId)
            if (owner === undefined) continue
            const [accountId, transactionId] = owner
            // IllegalTransition: expired or settled meanwhile by another run; the state machine already decided.
            // A bolepix its PIX settled first: the slip's payment is a second one, recorded to return.
            yield* settlement
              .markPaid(accountId, transactionId, slip.paidAt, { amount: slip.amount, paidOn: slip.paidOn })
              .pipe(
                Effect.catchTags({
                  IllegalTransition: () => bolepix.barcodeAfterSettled(accountId, transactionId, slip),
                  NotFound: () => Effect.void
                }),
                // A defect in one slip (a bug, a row the code cannot read) rolls back that slip's move only: it
                // is logged, stays pending and is asked again at the next poll, and the slips after it — of
                // every account — are still marked paid (docs/operations.md "Boleto confirmations").
                Effect.catchAllDefect((defect) =>
                  Effect.logError("boleto confirmation failed; the slip stays pending", defect).pipe(
                    Effect.annotateLogs({ accountId, transactionId }),
                    Effect.zipRight(Effect.sync(() => void failed++))
                  )
                )
              )
          }
          confirmed += settled.length - failed
          pendingLeft += page.length - settled.length + failed
          if (page.length < BATCH) break
          after = page[page.length - 1]!.id
        }
        if (pendingLeft > 0) yield* scheduler.confirmBoletosAt(new Date((yield* Clock.currentTimeMillis) + pollMs))
        return confirmed
      })
    }
  })
}) {}
