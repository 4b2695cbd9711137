import { AccountId, TransactionId, WithdrawalId } from "../domain/ids.ts"
import { Data, Effect, Either, type ParseResult, Runtime, Schema, Tracer } from "effect"
import { type JobHelpers, parseCrontab, type Task, type TaskList } from "graphile-worker"
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
 * error makes graphile-worker retry the job with its back-off. A payload that does not decode never will:
 * its job fails for good at once (`failForGood`). A crontab task's run that succeeds deletes the failed runs
 * of its task before it (`clearFailedRuns`).
 */
const task =
  <A, I>(
    name: string,
    payload: Schema.Schema<A, I>,
    program: (input: A) => Effect.Effect<unknown, never, TaskServices>
  ) =>
  (runtime: Runtime.Runtime<TaskServices>): Task =>
  async (raw, helpers) => {
    const decoded = Schema.decodeUnknownEither(payload)(raw, { errors: "all" })
    // One fiber per job, its run counted on the way out (at 1,000 jobs/s a second fiber shows in profiles).
    const outcome = await Runtime.runPromiseExit(runtime)(
      Either.match(decoded, { onLeft: (error) => failForGood(name, helpers, error), onRight: program }).pipe(
        Effect.zipLeft(SCHEDULED.has(name) ? clearFailedRuns(name, helpers) : Effect.void),
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

class UndecodablePayload extends Data.TaggedError("UndecodablePayload")<{ readonly message: string }> {}

/**
 * What does not decode in a payload, by path and expected type, without the payload's values (a job's
 * payload may carry a customer's data): `receivableId: expected UUID; accountId: expected AccountId`.
 */
const issuesOf = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey> = []): Array<string> => {
  const at = path.length === 0 ? "payload" : path.map(String).join(".")
  switch (issue._tag) {
    case "Pointer":
      return issuesOf(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Composite":
      return (Array.isArray(issue.issues) ? issue.issues : [issue.issues]).flatMap((i) => issuesOf(i, path))
    case "Refinement":
    case "Transformation":
      return issuesOf(issue.issue, path)
    case "Type":
      return [`${at}: expected ${String(issue.ast)}`]
    case "Missing":
      return [`${at}: missing`]
    case "Unexpected":
      return [`${at}: unexpected`]
    case "Forbidden":
      return [`${at}: forbidden`]
  }
}

/**
 * A payload that does not decode (a job enqueued by an older release, or by hand) would fail the same way on
 * each of its attempts, for days (25 over about four): its attempts are spent now, so that it counts as failed
 * at once (`jobs{state="failed"}`, `GatewayJobsFailing`), its `last_error` and an error line naming the task
 * and what does not decode. graphile-worker 0.17 has no way for a task to fail its job for good
 * (`permanentlyFailJobs` skips locked jobs): the task sets the attempts of the job it holds, then throws.
 */
const failForGood = (name: string, helpers: JobHelpers, error: ParseResult.ParseError) => {
  const issues = issuesOf(error.issue).join("; ")
  return Effect.promise(() =>
    helpers.query("update graphile_worker._private_jobs set attempts = max_attempts where id = $1", [helpers.job.id])
  ).pipe(
    // The worker's own line then says "attempt 25 of 25" and emits job:failed, as for any job failed for good.
    Effect.tap(() => Effect.sync(() => void (helpers.job.attempts = helpers.job.max_attempts))),
    Effect.zipRight(
      Effect.logError(`${name}: the job's payload does not decode; failed for good, not retried`).pipe(
        Effect.annotateLogs({ task: name, jobId: helpers.job.id, issues })
      )
    ),
    Effect.zipRight(Effect.die(new UndecodablePayload({ message: `the payload does not decode (${issues})` })))
  )
}

/**
 * A crontab task's run that succeeded did the work of the runs before it that failed for good: those are
 * deleted, so that a scheduled task's failed jobs are the runs that failed since its last success
 * (`GatewayScheduledJobFailing`, docs/operations.md "Scheduled jobs"). Their reasons stay in the worker's log.
 */
const clearFailedRuns = (name: string, helpers: JobHelpers) =>
  Effect.promise(() =>
    helpers.query(
      `delete from graphile_worker._private_jobs
       where task_id = $1 and attempts >= max_attempts and locked_at is null`,
      [helpers.job.task_id]
    )
  ).pipe(
    Effect.catchAllCause((cause) =>
      Effect.logWarning(`${name}: the failed runs before this successful one were not deleted`, cause)
    )
  )

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
    Effect.flatMap(Disputes, (d) => d.announcedChargeback(accountId, transactionId)).pipe(
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
 * count as failed: a task's runs failed since its last success are what `GatewayScheduledJobFailing` counts.
 */
export const CRONTAB = [
  "0 * * * * cleanup ?max=3",
  "* * * * * reconcile_charges ?max=2",
  "* * * * * reconcile_pix ?max=2",
  "*/5 * * * * return_bolepix_pix ?max=2",
  "17 * * * * ledger_check ?max=3"
].join("\n")

/** The tasks the crontab runs: their runs that succeed clear their failed ones (`clearFailedRuns`). */
const SCHEDULED: ReadonlySet<string> = new Set(parseCrontab(CRONTAB).map((item) => item.task))
