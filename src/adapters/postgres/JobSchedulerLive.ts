import { SqlClient } from "@effect/sql"
import { traced } from "./traced.ts"
import { Effect, Layer } from "effect"
import { JobScheduler } from "../../ports/JobScheduler.ts"
import { deferWrite } from "./deferred.ts"

/** graphile_worker.add_job on the caller's connection: the job commits with the state change. */
export const JobSchedulerLive = Layer.effect(
  JobScheduler,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return JobScheduler.of(
      traced("JobScheduler", {
        // With the transaction's other deferred writes (deferred.ts): a charge's last round trips.
        expireAt: (accountId, transactionId, at) =>
          deferWrite(sql, () => ({
            select: [
              sql`graphile_worker.add_job('expire_transaction',
                  json_build_object('accountId', ${accountId}::text, 'transactionId', ${transactionId}::text),
                  run_at := ${at.toISOString()}::timestamptz, job_key := ${`expire:${transactionId}`},
                  max_attempts := 10)`
            ]
          })),
        // With the move that settled or ended the boleto. graphile-worker's back-off (exp(attempt) seconds,
        // at most about 6 hours apart) over 25 attempts keeps asking a PSP that is down for about four days.
        withdrawDueChargeSoon: (accountId, transactionId) =>
          deferWrite(sql, () => ({
            select: [
              sql`graphile_worker.add_job('withdraw_due_charge',
                  json_build_object('accountId', ${accountId}::text, 'transactionId', ${transactionId}::text),
                  job_key := ${`withdraw_cobv:${transactionId}`}, max_attempts := 25)`
            ]
          })),
        // One keyed job for all pending slips: many boletos within the window collapse into one run.
        confirmBoletosSoon: sql`select graphile_worker.add_job('confirm_boletos', '{}'::json,
              job_key := 'confirm_boletos', job_key_mode := 'preserve_run_at', max_attempts := 10)`.pipe(
          Effect.orDie,
          Effect.asVoid
        ),
        confirmBoletosAt: (at) =>
          sql`select graphile_worker.add_job('confirm_boletos', '{}'::json, run_at := ${at.toISOString()}::timestamptz,
              job_key := 'confirm_boletos', job_key_mode := 'preserve_run_at', max_attempts := 10)`.pipe(
            Effect.orDie,
            Effect.asVoid
          ),
        settleAt: (accountId, receivableId, at) =>
          sql`select graphile_worker.add_job('settle_receivable',
              json_build_object('accountId', ${accountId}::text, 'receivableId', ${receivableId}::text),
              run_at := ${at.toISOString()}::timestamptz, job_key := ${`settle:${receivableId}`},
              max_attempts := 25)`.pipe(Effect.orDie, Effect.asVoid),
        payWithdrawalAt: (accountId, withdrawalId, at) =>
          sql`select graphile_worker.add_job('pay_withdrawal',
              json_build_object('accountId', ${accountId}::text, 'withdrawalId', ${withdrawalId}::text),
              run_at := ${at.toISOString()}::timestamptz, job_key := ${`withdraw:${withdrawalId}`},
              max_attempts := 25)`.pipe(Effect.orDie, Effect.asVoid),
        // With the capture that announced it (Payments.authorize): no round trip of its own.
        sandboxDisputeAt: (accountId, transactionId, at) =>
          deferWrite(sql, () => ({
            select: [
              sql`graphile_worker.add_job('sandbox_dispute',
                  json_build_object('accountId', ${accountId}::text, 'transactionId', ${transactionId}::text),
                  run_at := ${at.toISOString()}::timestamptz, job_key := ${`dispute:${transactionId}`},
                  max_attempts := 5)`
            ]
          })),
        // One keyed job: a run that schedules the next while it runs gets a new job (the running one's key
        // is cleared); no retries, the next cycle is the retry (docs/providers.md "Boleto: banks by CNAB 240").
        bankFilesCycleAt: (at) =>
          sql`select graphile_worker.add_job('bank_files_cycle', '{}'::json, run_at := ${at.toISOString()}::timestamptz,
              job_key := 'bank_files_cycle', job_key_mode := 'replace', max_attempts := 1)`.pipe(
            Effect.orDie,
            Effect.asVoid
          ),
        bankFilesCycleSoon: sql`select graphile_worker.add_job('bank_files_cycle', '{}'::json,
              job_key := 'bank_files_cycle', job_key_mode := 'preserve_run_at', max_attempts := 1)`.pipe(
          Effect.orDie,
          Effect.asVoid
        ),
        // job_key per delivery: a manual retry replaces a scheduled one instead of doubling it.
        deliverAt: (deliveryId, at) =>
          sql`select graphile_worker.add_job('deliver_webhook', json_build_object('deliveryId', ${deliveryId}::text),
              run_at := ${at.toISOString()}::timestamptz, job_key := ${deliveryId},
              job_key_mode := 'replace', max_attempts := 25)`.pipe(Effect.orDie, Effect.asVoid)
      })
    )
  })
)
