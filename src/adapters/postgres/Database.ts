import { PgClient } from "@effect/sql-pg"
import { Config, Context, Effect, Layer, Option, Redacted, Runtime, String } from "effect"
import pg from "pg"
import { AppConfig } from "../../config/AppConfig.ts"
import { startEmbeddedPostgres } from "./EmbeddedPostgres.ts"
import { prepareStatements } from "./prepared.ts"
import { BOUNDS, type Bounds, NO_ANSWER, watchStatements } from "./statementWatchdog.ts"

export type { Bounds } from "./statementWatchdog.ts"

/** TCP keepalive on every connection: an idle one (LISTEN, the pool's idle ones) to a host gone is found dead. */
const KEEPALIVE_IDLE_MS = 10_000

/** The one `pg` pool that @effect/sql-pg and graphile-worker share. */
export class PgPool extends Context.Tag("PgPool")<PgPool, pg.Pool>() {}

// int8 (bigint) columns hold centavos and counts; they fit a JS number (< 2^53).
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"]
}

// 57P01: the server is shutting down (a Ctrl-C reaches the embedded PostgreSQL too): expected, not alarming.
const ADMIN_SHUTDOWN = "57P01"

export const makePool = (connectionString: string, max = 20, prepare = true, bounds: Bounds = BOUNDS) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<never>()
      const log = Runtime.runFork(runtime)
      const dropped = new WeakSet<object>()
      const report = (error: Error & { code?: string }) =>
        log(
          error.code === ADMIN_SHUTDOWN
            ? Effect.logDebug("PostgreSQL connection closed by server shutdown")
            : Effect.logWarning("PostgreSQL client error", error.message)
        )
      const pool = new pg.Pool({
        connectionString,
        max,
        types,
        application_name: "payment-gateway",
        connectionTimeoutMillis: bounds.connectMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS
      })
      // A client losing its connection must not crash the process; the pool replaces it.
      pool.on("error", (error, client) => {
        if (!dropped.has(client)) report(error)
      })
      pool.on("connect", (client) => {
        // Kept for the client's life: a dropped connection emits its error twice (the drop, then the close).
        client.on("error", (error) => {
          if (!dropped.has(client)) report(error)
        })
        if (prepare) prepareStatements(client)
      })
      const stop = watchStatements(pool, bounds, dropped, (n) =>
        log(
          Effect.logWarning(
            `${NO_ANSWER}: ${n} connection(s) dropped, each with a statement outstanding over ` +
              `${bounds.suspectAfterMs / 1000} s and no answer to a new connection within ${bounds.probeMs / 1000} s`
          )
        )
      )
      return { pool, stop }
    }),
    ({ pool, stop }) =>
      Effect.promise(stop).pipe(
        Effect.timeout(bounds.probeMs),
        Effect.ignore,
        Effect.zipRight(Effect.promise(() => pool.end()).pipe(Effect.timeout("5 seconds"), Effect.ignore))
      )
  ).pipe(Effect.map(({ pool }) => pool))

/** `DATABASE_URL` when set, otherwise an embedded PostgreSQL under `DATA_DIR`. */
export const PgPoolLive = Layer.scoped(
  PgPool,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const url = yield* Option.match(config.databaseUrl, {
      onSome: (url) => Effect.succeed(Redacted.value(url)),
      onNone: () => startEmbeddedPostgres(config.dataDir)
    })
    const prepare = yield* Config.boolean("DATABASE_PREPARE").pipe(Config.withDefault(true))
    return yield* makePool(url, 20, prepare)
  })
)

/** @effect/sql over the shared pool; column names are camelCase in code, snake_case in SQL. */
export const SqlLive = Layer.unwrapEffect(
  Effect.map(PgPool, (pool) =>
    PgClient.layerFromPool({
      acquire: Effect.succeed(pool),
      transformResultNames: String.snakeToCamel,
      transformQueryNames: String.camelToSnake,
      // jsonb columns (event payloads, details) keep their keys exactly as written.
      transformJson: false,
      types
    })
  )
).pipe(Layer.orDie)
