import { AccountId, TransactionId, WithdrawalId } from "../domain/ids.ts"
import { Effect, Runtime, Schema, Tracer } from "effect"
import type { Task, TaskList } from "graphile-worker"
import { Metrics } from "../ports/Metrics.ts"
import { Bolepix } from "../app/Bolepix.ts"
import { Boletos } from "../app/Boletos.ts"
import { BoletoFiles } from "../app/BoletoFiles.ts"
import { Deliveries } from "../app/Deliveries.ts"
import { Housekeeping } from "../app/Housekeeping.ts"
import { Reconciliation } from "../app/Reconciliation.ts"
import { Refunds } from "../app/Refunds.ts"
import { Settlement } from "../app/Settlement.ts"
import { Disputes } from "../app/Disputes.ts"
import { Withdrawals } from "../app/Withdrawals.ts"
import { Audit } from "../app/Audit.ts"
import { withSpan } from "../spans.ts"
import { Tenancy } from "../ports/Modes.ts"
import { failureReason } from "./failureReason.ts"

export type TaskServices =
  | Deliveries
  | Settlement
  | Boletos
  | Bolepix
  | BoletoFiles
  | Housekeeping
  | Reconciliation
  | Refunds
  | Metrics
  | Disputes
  | Withdrawals
  | Audit
  | Tenancy

/**
 * graphile-worker tasks: each decodes its payload and makes one call into the core, in the mode of the
 * tenant the job is for (`Tenancy.within`; the sweeps over every tenant set it per record). A thrown
 * error makes graphile-worker retry the job with its back-off.
 */
const task =
  <A, I>(
    name: string,
    payload: Schema.Schema<A, I>,
    program: (input: A) => Effect.Effect<unknown, never, TaskServices>
  ) =>
  (runtime: Runtime.Runtime<TaskServices>): Task =>
  async (raw) => {
    // One fiber per job, its run counted on the way out (at 1,000 jobs/s a second fiber shows in profiles).
    const outcome = await Runtime.runPromiseExit(runtime)(
      Schema.decodeUnknown(payload)(raw).pipe(
        Effect.orDie,
        Effect.flatMap(program),
        withSpan(`job.${name}`, { kind: "consumer", ...parentOf(raw) }),
        Effect.onExit((exit) =>
          Effect.flatMap(Metrics, (m) =>
            Effect.sync(() => m.jobRuns.inc({ task: name, outcome: exit._tag === "Success" ? "success" : "failure" }))
          )
        )
      )
    )
    if (outcome._tag === "Failure") throw new Error(`${name} failed: ${failureReason(outcome.cause)}`)
  }

/** A job enqueued under a trace carries its W3C `traceparent`: the job's span joins that trace. */
const parentOf = (raw: unknown) => {
  const traceparent = (raw as { traceparent?: unknown } | null)?.traceparent
  const match = typeof traceparent === "string" ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-/.exec(traceparent) : null
  return match ? { parent: Tracer.externalSpan({ traceId: match[1]!, spanId: match[2]! }) } : {}
}

const deliverWebhook = task("deliver_webhook", Schema.Struct({ deliveryId: Schema.UUID }), ({ deliveryId }) =>
  Effect.flatMap(Deliveries, (d) => d.attempt(deliveryId))
)

const expireTransaction = task(
  "expire_transaction",
  Schema.Struct({ accountId: AccountId, transactionId: TransactionId }),
  ({ accountId, transactionId }) =>
    // Paid, or expired by the sandbox, before the deadline: nothing to do.
    Effect.flatMap(Settlement, (s) => s.expire(accountId, transactionId)).pipe(
      Effect.catchTags({ IllegalTransition: () => Effect.void, NotFound: () => Effect.void }),
      Tenancy.within(accountId)
    )
)

// A bolepix whose boleto took its last payment (barcode) or ended: its cobv withdrawn; the PSP down, retried.
const withdrawDueCharge = task(
  "withdraw_due_charge",
  Schema.Struct({ accountId: AccountId, transactionId: TransactionId }),
  ({ accountId, transactionId }) =>
    Effect.flatMap(Settlement, (s) => s.withdrawDueCharge(accountId, transactionId)).pipe(Tenancy.within(accountId))
)

const confirmBoletos = task("confirm_boletos", Schema.Unknown, () => Effect.flatMap(Boletos, (b) => b.confirm()))

// The bank by files' cycle: watched retornos, then a remessa when due (docs/providers.md "Boleto: banks by CNAB 240").
const bankFilesCycle = task("bank_files_cycle", Schema.Unknown, () => Effect.flatMap(BoletoFiles, (b) => b.cycle()))

const reconcileCharges = task("reconcile_charges", Schema.Unknown, () =>
  Effect.flatMap(Reconciliation, (r) => r.reconcile())
)

// Payments whose notice was lost, then refunds the PSP had not decided when they were asked for.
const reconcilePix = task("reconcile_pix", Schema.Unknown, () =>
  Effect.zipRight(
    Effect.flatMap(Reconciliation, (r) => r.reconcilePix()),
    Effect.flatMap(Refunds, (r) => r.reconcilePending())
  )
)

// A bolepix second PIX whose devolução the PSP had not decided (or could not be asked): asked again, the same one.
const returnBolepixPix = task("return_bolepix_pix", Schema.Unknown, () => Effect.flatMap(Bolepix, (b) => b.askAgain()))

const settleReceivable = task(
  "settle_receivable",
  Schema.Struct({ accountId: AccountId, receivableId: Schema.UUID }),
  ({ accountId, receivableId }) =>
    Effect.flatMap(Settlement, (s) => s.settleReceivable(accountId, receivableId)).pipe(Tenancy.within(accountId))
)

const payWithdrawal = task(
  "pay_withdrawal",
  Schema.Struct({ accountId: AccountId, withdrawalId: WithdrawalId }),
  ({ accountId, withdrawalId }) =>
    Effect.flatMap(Withdrawals, (w) => w.pay(accountId, withdrawalId)).pipe(Tenancy.within(accountId))
)

// The sandbox acquirer's announced chargeback: refunded or disputed meanwhile, there is nothing to open.
const sandboxDispute = task(
  "sandbox_dispute",
  Schema.Struct({ accountId: AccountId, transactionId: TransactionId }),
  ({ accountId, transactionId }) =>
    Effect.flatMap(Disputes, (d) => d.chargeback(accountId, transactionId, "open")).pipe(
      Effect.catchTags({ IllegalTransition: () => Effect.void, NotFound: () => Effect.void }),
      Tenancy.within(accountId)
    )
)

const ledgerCheck = task("ledger_check", Schema.Unknown, () => Effect.flatMap(Audit, (a) => a.check))

const cleanup = task("cleanup", Schema.Unknown, () => Effect.flatMap(Housekeeping, (h) => h.cleanup()))

export const makeTaskList = (runtime: Runtime.Runtime<TaskServices>): TaskList => ({
  deliver_webhook: deliverWebhook(runtime),
  expire_transaction: expireTransaction(runtime),
  withdraw_due_charge: withdrawDueCharge(runtime),
  confirm_boletos: confirmBoletos(runtime),
  bank_files_cycle: bankFilesCycle(runtime),
  reconcile_charges: reconcileCharges(runtime),
  reconcile_pix: reconcilePix(runtime),
  return_bolepix_pix: returnBolepixPix(runtime),
  cleanup: cleanup(runtime),
  settle_receivable: settleReceivable(runtime),
  pay_withdrawal: payWithdrawal(runtime),
  sandbox_dispute: sandboxDispute(runtime),
  ledger_check: ledgerCheck(runtime)
})

/**
 * graphile-worker crontab, each entry run once across all workers: the hourly clean-up, every
 * minute the reconciliation of card charges stuck in PROCESSING and of PIX payments whose notice was lost
 * (a no-op with the sandbox PSP), every five minutes the bolepix second PIX still `returning` asked of the
 * PSP again (docs/boleto.md "Bolepix"), and hourly the ledger check whose result the ledger_imbalance_centavos
 * gauge shows (docs/money.md).
 *
 * Each with few attempts (`?max=`, docs/operations.md "Scheduled jobs"): the next run does the same work,
 * so a run that keeps failing must neither pile up retrying copies (graphile-worker's default, 25 attempts
 * over about four days, would keep thousands of `reconcile_pix` runs asking the PSP) nor wait days to
 * count as failed, which is what `GatewayJobsFailing` sees.
 */
export const CRONTAB = [
  "0 * * * * cleanup ?max=3",
  "* * * * * reconcile_charges ?max=2",
  "* * * * * reconcile_pix ?max=2",
  "*/5 * * * * return_bolepix_pix ?max=2",
  "17 * * * * ledger_check ?max=3"
].join("\n")
