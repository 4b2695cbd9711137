import { randomBytes } from "node:crypto"
import { mkdtemp } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime, Option, Redacted } from "effect"
import pg from "pg"
import { AppConfigFrom, type AppConfigShape } from "../../src/config/AppConfig.ts"
import { type Role, roleLayer } from "../../src/Roles.ts"
import { createTestDatabase } from "./database.ts"

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

export const testConfig = async (databaseUrl: string, overrides: Partial<AppConfigShape> = {}): Promise<AppConfigShape> => {
  const port = overrides.port ?? await freePort()
  return {
    production: false,
    port,
    host: "127.0.0.1",
    databaseUrl: Option.some(Redacted.make(databaseUrl)),
    dataDir: await mkdtemp(join(tmpdir(), "gateway-data-")),
    jwtSecret: Redacted.make(randomBytes(32).toString("base64url")),
    cardVaultKey: Redacted.make(randomBytes(32).toString("base64")),
    publicBaseUrl: `http://127.0.0.1:${port}`,
    rateLimitPerMinute: 100,
    pixExpiresInSeconds: 3600,
    boletoDueDays: 3,
    boletoConfirmationDelaySeconds: 1,
    sandboxEnabled: true,
    signupEnabled: true,
    webhookAllowPrivateUrls: true,
    webhookTimeoutMs: 2000,
    webhookRetrySchedule: [1, 2, 3],
    workerConcurrency: 4,
    logLevel: "warning",
    ...overrides
  }
}

export interface TestServer {
  readonly baseUrl: string
  readonly databaseUrl: string
  readonly config: AppConfigShape
  /** Direct database access for assertions (not for driving behaviour). */
  readonly db: pg.Pool
  readonly close: () => Promise<void>
}

/**
 * The real service in this process (HTTP on a free loopback port, worker, migrations) over a fresh
 * database of the run's PostgreSQL.
 */
export const startTestServer = async (
  overrides: Partial<AppConfigShape> = {},
  options: { readonly role?: Role; readonly databaseUrl?: string } = {}
): Promise<TestServer> => {
  const databaseUrl = options.databaseUrl ?? await createTestDatabase()
  const config = await testConfig(databaseUrl, overrides)
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
    databaseUrl,
    config,
    db,
    close: async () => {
      await db.end()
      await runtime.dispose()
    }
  }
}
