import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, ConfigProvider, Effect, Layer, Logger, LogLevel } from "effect"
import { AppConfig, AppConfigLive } from "./config/AppConfig.ts"
import { emptyAsUnset } from "./config/emptyAsUnset.ts"
import { embeddedPostgresLost } from "./adapters/postgres/EmbeddedPostgres.ts"
import { DatabaseLive, type Role, roleLayer } from "./Roles.ts"
import { exitWithin, installShutdownBackstop } from "./shutdown.ts"
import { describeStartupFailure } from "./startupFailure.ts"

const role = process.argv[2] ?? "all"
if (role !== "all" && role !== "api" && role !== "worker" && role !== "migrate") {
  console.error(`unknown role ${role}: use all, api, worker or migrate`)
  process.exit(2)
}

installShutdownBackstop()

const LoggingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Logger.minimumLogLevel(
      LogLevel.fromLiteral((config.logLevel[0]!.toUpperCase() + config.logLevel.slice(1)) as LogLevel.Literal)
    )
  )
).pipe(Layer.provide(AppConfigLive), Layer.merge(Logger.json))

// `migrate` (a deployment's migrations Job) applies the migrations and exits; the other roles run until
// a signal. runMain interrupts on SIGINT/SIGTERM: the layers' finalizers stop HTTP, the worker and
// PostgreSQL in order. An embedded PostgreSQL that cannot be started again ends the role with a failure
// (exit code 1), its stop bounded: nothing it would wait for can be done without the database.
const program =
  role === "migrate"
    ? Effect.scoped(Layer.build(DatabaseLive.pipe(Layer.provide(NodeContext.layer)))).pipe(
        Effect.zipRight(Effect.logInfo("migrations applied")),
        Effect.provide(AppConfigLive)
      )
    : Layer.launch(roleLayer(role as Role).pipe(Layer.provide(AppConfigLive))).pipe(
        Effect.raceFirst(embeddedPostgresLost.pipe(Effect.tapError(() => Effect.sync(() => exitWithin(5, 1)))))
      )
// A failure prints one line with its cause and the way out when it is a known one (a port in use, an
// unreachable DATABASE_URL, bad configuration: docs/operations.md), the full cause otherwise.
const reportFailure = (cause: Cause.Cause<unknown>) =>
  Effect.sync(() => {
    if (Cause.isInterruptedOnly(cause)) return
    console.error(describeStartupFailure(cause) ?? Cause.pretty(cause, { renderErrorCause: true }))
  })
program.pipe(
  Effect.provide(LoggingLive),
  // Every variable of every role read as AppConfig reads its own: set empty is unset (docs/configuration.md
  // "Empty values"). The providers' settings too: PIX_WEBHOOK_SECRET="" was an empty secret segment, leaving
  // only PIX_WEBHOOK_ALLOWED_IPS between the receiver and anyone posting notices.
  Effect.withConfigProvider(emptyAsUnset(ConfigProvider.fromEnv())),
  Effect.tapErrorCause(reportFailure),
  NodeRuntime.runMain({ disablePrettyLogger: true, disableErrorReporting: true })
)
