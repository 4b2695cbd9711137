import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfigFrom } from "../../src/config/AppConfig.ts"
import { makePool, PgPool, SqlLive } from "../../src/adapters/postgres/Database.ts"
import { MigrationsLive } from "../../src/adapters/postgres/Migrations.ts"
import { createMigratedTestDatabase } from "./database.ts"
import { testConfig } from "./server.ts"

/**
 * For an adapter's own tests: a fresh, migrated database of the run's server, with the SQL client, the
 * pool (of `connections`) and the test configuration over it.
 */
export const migratedDatabase = (connections = 4) =>
  Layer.unwrapEffect(
    Effect.promise(async () => {
      const url = await createMigratedTestDatabase()
      return MigrationsLive.pipe(
        Layer.provideMerge(SqlLive),
        Layer.provideMerge(Layer.scoped(PgPool, makePool(url, connections))),
        Layer.provideMerge(AppConfigFrom(await testConfig(url))),
        Layer.provide(NodeContext.layer)
      )
    })
  )
