import { Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import pg from "pg"
import { AppConfigFrom, type AppConfigShape } from "../../src/config/AppConfig.ts"
import { testConfig } from "./config.ts"
import { type Role, roleLayer } from "../../src/Roles.ts"
import { createMigratedTestDatabase } from "./database.ts"

export { freePort, testConfig } from "./config.ts"

export interface TestServer {
  readonly baseUrl: string
  /** GET /metrics, on its own listener (docs/operations.md "Metrics"). */
  readonly metricsUrl: string
  readonly databaseUrl: string
  readonly config: AppConfigShape
  /** Direct database access for assertions (not for driving behaviour). */
  readonly db: pg.Pool
  readonly close: () => Promise<void>
}

/**
 * The real service in this process (HTTP on a free loopback port, worker, migrations) over a fresh
 * database of the run's PostgreSQL, already migrated (a copy of the run's template: its migrations
 * step finds nothing to apply). `options.databaseUrl` (an empty `createTestDatabase()`) to test migrating.
 */
export const startTestServer = async (
  overrides: Partial<AppConfigShape> = {},
  options: { readonly role?: Role; readonly databaseUrl?: string } = {}
): Promise<TestServer> => {
  const databaseUrl = options.databaseUrl ?? (await createMigratedTestDatabase())
  // A job that becomes due (a retry, a boleto confirmation, a withdrawal's delay) is seen within 100 ms
  // instead of the service's 500 (new jobs wake the worker at once either way): tests wait less.
  const config = await testConfig(databaseUrl, { workerPollIntervalMs: 100, ...overrides })
  const runtime = ManagedRuntime.make(
    roleLayer(options.role ?? "all").pipe(
      Layer.provide(AppConfigFrom(config)),
      Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
    )
  )
  await runtime.runPromise(Effect.void)
  const db = new pg.Pool({ connectionString: databaseUrl, max: 3 })
  return {
    baseUrl: `http://127.0.0.1:${config.port}`,
    metricsUrl: `http://127.0.0.1:${config.metrics.port}/metrics`,
    databaseUrl,
    config,
    db,
    close: async () => {
      await db.end()
      await runtime.dispose()
    }
  }
}
