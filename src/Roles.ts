import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { BoletoFiles } from "./app/BoletoFiles.ts"
import { PgPoolLive, SqlLive } from "./adapters/postgres/Database.ts"
import { MigrationsLive } from "./adapters/postgres/Migrations.ts"
import { AppLive, PixReceiverLive } from "./Live.ts"
import { HttpLive } from "./http/Server.ts"
import { MetricsServerLive } from "./http/ops/MetricsServer.ts"
import { DrainOnShutdown } from "./http/shared/Draining.ts"
import { graceSeconds } from "./shutdown.ts"
import { WorkerLive } from "./adapters/postgres/GraphileWorker.ts"
import { TracingLive } from "./adapters/tracing/Tracing.ts"

/**
 * `all` (npm start): migrations, HTTP API and job worker in one process.
 * `api` / `worker`: the two roles apart, for horizontal scaling on one DATABASE_URL.
 */
export type Role = "all" | "api" | "worker"

export const DatabaseLive = MigrationsLive.pipe(Layer.provideMerge(SqlLive), Layer.provideMerge(PgPoolLive))

/** A worker makes sure the bank files' cycle job exists (when a bank by files is configured). */
const BankFilesCycleLive = Layer.effectDiscard(Effect.flatMap(BoletoFiles, (b) => b.start))

/** Requests get the grace period less a few seconds for the worker, the pool and the database to stop. */
const drainMs = () => Math.max(1, graceSeconds() - 5) * 1000

/** The process for a role; needs only AppConfig. The roles start after the migrations have been applied. */
export const roleLayer = (role: Role) =>
  Layer.mergeAll(
    role === "worker" ? Layer.empty : DrainOnShutdown(drainMs()).pipe(Layer.provideMerge(HttpLive)),
    // Every role serves /metrics, once per process (`all` too): the worker's own counters and gauges
    // (webhook_deliveries_total, job_runs_total, ledger_imbalance_centavos) exist only in the worker, and the
    // alerts on them need it scraped where it runs apart (docs/operations.md "Metrics").
    MetricsServerLive,
    role === "worker" ? Layer.empty : PixReceiverLive,
    role === "api" ? Layer.empty : WorkerLive,
    role === "api" ? Layer.empty : BankFilesCycleLive
  ).pipe(
    Layer.provideMerge(AppLive),
    Layer.provideMerge(DatabaseLive),
    Layer.provide(NodeContext.layer),
    // Outermost, so that every fiber of the role runs under the tracer (when one is configured).
    Layer.provide(TracingLive)
  )
