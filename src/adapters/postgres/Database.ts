import { PgClient } from "@effect/sql-pg"
import { Config, Context, Effect, Layer, Option, Redacted, Runtime, String } from "effect"
import pg from "pg"
import { AppConfig } from "../../config/AppConfig.ts"
import { startEmbeddedPostgres } from "./EmbeddedPostgres.ts"
import { prepareStatements } from "./prepared.ts"

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

export const makePool = (connectionString: string, max = 20, prepare = true) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<never>()
      const report = (error: Error & { code?: string }) =>
        Runtime.runFork(runtime)(
          error.code === ADMIN_SHUTDOWN
            ? Effect.logDebug("PostgreSQL connection closed by server shutdown")
            : Effect.logWarning("PostgreSQL client error", error.message)
        )
      const pool = new pg.Pool({ connectionString, max, types, application_name: "payment-gateway" })
      // A client losing its connection must not crash the process; the pool replaces it.
      pool.on("error", report)
      pool.on("connect", (client) => {
        client.on("error", report)
        if (prepare) prepareStatements(client)
      })
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeout("5 seconds"), Effect.ignore)
  )

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
