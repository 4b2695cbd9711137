import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { AppConfig, AppConfigLive } from "./config/AppConfig.ts"
import { type Role, roleLayer } from "./Roles.ts"
import { installShutdownBackstop } from "./shutdown.ts"

const role = process.argv[2] ?? "all"
if (role !== "all" && role !== "api" && role !== "worker") {
  console.error(`unknown role ${role}: use all, api or worker`)
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

// runMain interrupts on SIGINT/SIGTERM: the layers' finalizers stop HTTP, the worker and PostgreSQL in order.
Layer.launch(roleLayer(role as Role).pipe(Layer.provide(AppConfigLive))).pipe(
  Effect.provide(LoggingLive),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
