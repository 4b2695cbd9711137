import { PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import { Logger as WorkerLogger, runMigrations } from "graphile-worker"
import { PgPool } from "./Database.ts"
import { pinWorkerPlans } from "./workerPlans.ts"
import foundation from "./migrations/0001_foundation.ts"
import payments from "./migrations/0002_payments.ts"
import events from "./migrations/0003_events.ts"
import lifecycle from "./migrations/0004_lifecycle.ts"
import publicV1 from "./migrations/0005_public_v1.ts"
import subaccounts from "./migrations/0006_subaccounts.ts"
import ledger from "./migrations/0008_ledger.ts"
import admission from "./migrations/0010_admission.ts"
import antifraud from "./migrations/0007_antifraud.ts"
import listIndexes from "./migrations/0009_list_indexes.ts"
import rateLimitAsyncCommit from "./migrations/0011_rate_limit_async_commit.ts"
import admissionClaim from "./migrations/0012_admission_claim.ts"
import transactionTotals from "./migrations/0013_transaction_totals.ts"
import refundsWithinTotal from "./migrations/0014_refunds_within_total.ts"
import checkoutTokens from "./migrations/0015_checkout_tokens.ts"
import accountDocument from "./migrations/0016_account_document.ts"
import claimOwners from "./migrations/0017_claim_owners.ts"
import modes from "./migrations/0018_modes.ts"
import transactionAcquirer from "./migrations/0022_transaction_acquirer.ts"
import boletoCharges from "./migrations/0028_boleto_charges.ts"
import eventOperations from "./migrations/0024_event_operations.ts"
import requestLog from "./migrations/0025_request_log.ts"
import pixReceived from "./migrations/0020_pix_received.ts"
import cnabTitles from "./migrations/0029_cnab_titles.ts"
import bankFee from "./migrations/0033_bank_fee.ts"
import paymentLinks from "./migrations/0030_payment_links.ts"
import bolepix from "./migrations/0034_bolepix.ts"
import boletoRefundBase from "./migrations/0035_boleto_refund_base.ts"
import chargeBatch from "./migrations/0036_charge_batch.ts"
import bolepixAskAgain from "./migrations/0038_bolepix_ask_again.ts"
import rateLimitTakeFewerStatements from "./migrations/0040_rate_limit_take_fewer_statements.ts"
import rateLimitHitsByIndex from "./migrations/0041_rate_limit_hits_by_index.ts"
import rateLimitPrune from "./migrations/0044_rate_limit_prune.ts"
import pixReceivedMarks from "./migrations/0045_pix_received_marks.ts"
import rateLimitPruneRows from "./migrations/0046_rate_limit_prune_rows.ts"
import rateLimitExpiredTo from "./migrations/0047_rate_limit_expired_to.ts"
import ledgerEntriesByTransaction from "./migrations/0048_ledger_entries_by_transaction.ts"
import deliveryScheduleFrom from "./migrations/0049_delivery_schedule_from.ts"
import loginAttempts from "./migrations/0050_login_attempts.ts"
import refundsPending from "./migrations/0051_refunds_pending.ts"
import feedsInCommitOrder from "./migrations/0052_feeds_in_commit_order.ts"
import pixReceivedSettling from "./migrations/0053_pix_received_settling.ts"
import ledgerLastCheck from "./migrations/0054_ledger_last_check.ts"
import boletoPaymentsToReturn from "./migrations/0055_boleto_payments_to_return.ts"
import orderChargeInFlight from "./migrations/0056_order_charge_in_flight.ts"
import pixPaymentsToReturn from "./migrations/0057_pix_payments_to_return.ts"
import transactionsCardToken from "./migrations/0058_transactions_card_token.ts"
import admitMany from "./migrations/0042_admit_many.ts"
import pixExceptionHandled from "./migrations/0043_pix_exception_handled.ts"
import { withSpan } from "../../spans.ts"

export const MIGRATIONS = {
  "0001_foundation": foundation,
  "0002_payments": payments,
  "0003_events": events,
  "0004_lifecycle": lifecycle,
  "0005_public_v1": publicV1,
  "0006_subaccounts": subaccounts,
  "0007_antifraud": antifraud,
  "0008_ledger": ledger,
  "0009_list_indexes": listIndexes,
  "0010_admission": admission,
  "0011_rate_limit_async_commit": rateLimitAsyncCommit,
  "0012_admission_claim": admissionClaim,
  "0013_transaction_totals": transactionTotals,
  "0014_refunds_within_total": refundsWithinTotal,
  "0015_checkout_tokens": checkoutTokens,
  "0016_account_document": accountDocument,
  "0017_claim_owners": claimOwners,
  "0018_modes": modes,
  "0022_transaction_acquirer": transactionAcquirer,
  "0028_boleto_charges": boletoCharges,
  "0024_event_operations": eventOperations,
  "0025_request_log": requestLog,
  "0020_pix_received": pixReceived,
  "0029_cnab_titles": cnabTitles,
  "0033_bank_fee": bankFee,
  "0030_payment_links": paymentLinks,
  "0034_bolepix": bolepix,
  "0035_boleto_refund_base": boletoRefundBase,
  "0036_charge_batch": chargeBatch,
  "0038_bolepix_ask_again": bolepixAskAgain,
  "0040_rate_limit_take_fewer_statements": rateLimitTakeFewerStatements,
  "0041_rate_limit_hits_by_index": rateLimitHitsByIndex,
  "0042_admit_many": admitMany,
  "0043_pix_exception_handled": pixExceptionHandled,
  "0044_rate_limit_prune": rateLimitPrune,
  "0045_pix_received_marks": pixReceivedMarks,
  "0046_rate_limit_prune_rows": rateLimitPruneRows,
  "0047_rate_limit_expired_to": rateLimitExpiredTo,
  "0048_ledger_entries_by_transaction": ledgerEntriesByTransaction,
  "0049_delivery_schedule_from": deliveryScheduleFrom,
  "0050_login_attempts": loginAttempts,
  "0051_refunds_pending": refundsPending,
  "0052_feeds_in_commit_order": feedsInCommitOrder,
  "0053_pix_received_settling": pixReceivedSettling,
  "0054_ledger_last_check": ledgerLastCheck,
  "0055_boleto_payments_to_return": boletoPaymentsToReturn,
  "0056_order_charge_in_flight": orderChargeInFlight,
  "0057_pix_payments_to_return": pixPaymentsToReturn,
  "0058_transactions_card_token": transactionsCardToken
}

const loader = PgMigrator.fromRecord(MIGRATIONS)

// Any fixed 64-bit number works; every process that migrates this database uses the same one.
const MIGRATION_LOCK = 7_340_112_009

/**
 * Applies our migrations and graphile-worker's schema. Two processes starting at once take turns on a
 * session advisory lock held on a dedicated connection, so neither sees a half-migrated database.
 */
export const migrate = Effect.gen(function* () {
  const pool = yield* PgPool
  const client = yield* Effect.acquireRelease(
    Effect.promise(() => pool.connect()),
    (client) => Effect.sync(() => client.release())
  )
  yield* Effect.acquireRelease(
    Effect.promise(() => client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK])),
    () => Effect.promise(() => client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK])).pipe(Effect.ignore)
  )
  const applied = yield* PgMigrator.run({ loader })
  yield* Effect.promise(() => runMigrations({ pgPool: pool, logger: quietLogger }))
  yield* Effect.promise(() => pinWorkerPlans(client))
  if (applied.length > 0)
    yield* Effect.logInfo(`applied migrations: ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`)
}).pipe(Effect.scoped, Effect.orDie, withSpan("Database.migrate"))

export const MigrationsLive = Layer.effectDiscard(migrate)

/** graphile-worker speaks through our logger, and only when something is wrong. */
export const quietLogger = new WorkerLogger(() => (level: string, message: string) => {
  if (level === "error" || level === "warning") Effect.runFork(Effect.logWarning(`graphile-worker: ${message}`))
})
