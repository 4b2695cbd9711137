import { Clock, Effect } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { BoletoProvider } from "../ports/BoletoProvider.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Settlement } from "./Settlement.ts"

const BATCH = 500

/**
 * The boleto confirmation job: asks the bank (BoletoProvider port) which pending slips it has
 * settled and marks them PAID. While slips are pending it runs again shortly; with none it stops.
 */
export class Boletos extends Effect.Service<Boletos>()("Boletos", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const provider = yield* BoletoProvider
    const transactions = yield* TransactionRepo
    const settlement = yield* Settlement
    const scheduler = yield* JobScheduler
    // Ask the bank about as often as it can have news (the sandbox's delay), at most once a minute apart.
    const pollMs = Math.min(60, Math.max(1, config.boletoConfirmationDelaySeconds)) * 1000

    return {
      confirm: Effect.fn("Boletos.confirm")(function*() {
        const pending = yield* transactions.pendingBoletos(BATCH)
        const owners = new Map(pending.map((p) => [p.id, p.accountId]))
        const settled = yield* provider.settlements(pending.map((p) => p.id))
        for (const slip of settled) {
          const accountId = owners.get(slip.transactionId)
          if (accountId === undefined) continue
          // Conflict: expired or settled meanwhile by another run; the state machine already decided.
          yield* settlement.markPaid(accountId, slip.transactionId, slip.paidAt).pipe(Effect.catchTags({ Conflict: () => Effect.void, NotFound: () => Effect.void }))
        }
        if (pending.length > settled.length) {
          yield* scheduler.confirmBoletosAt(new Date((yield* Clock.currentTimeMillis) + pollMs))
        }
        return settled.length
      })
    }
  })
}) {}
