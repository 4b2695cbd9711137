import { randomBytes } from "node:crypto"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeContext } from "@effect/platform-node"
import { Effect, Exit, Layer, Logger, LogLevel, Scope } from "effect"
import pg from "pg"
import type { TestProject } from "vitest/node"
import { makePool, PgPool, SqlLive } from "../../src/adapters/postgres/Database.ts"
import { startEmbeddedPostgres } from "../../src/adapters/postgres/EmbeddedPostgres.ts"
import { MigrationsLive } from "../../src/adapters/postgres/Migrations.ts"
import { checkLedgers } from "./ledger-check.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** A server where each test file creates its own database. */
    adminDatabaseUrl: string
    /** A database holding every migration and no rows, copied by `createMigratedTestDatabase`. */
    templateDatabase: string
  }
}

/**
 * One PostgreSQL for the whole run: DATABASE_URL when set (CI against PostgreSQL 15), otherwise an
 * embedded PostgreSQL 18 in a temporary directory that is removed afterwards.
 */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    const url = process.env.DATABASE_URL
    project.provide("adminDatabaseUrl", url)
    const template = await migratedTemplate(url)
    project.provide("templateDatabase", template)
    return async () => {
      try {
        await reconcile(url)
      } finally {
        await dropTestDatabases(url, template)
      }
    }
  }
  const dir = await mkdtemp(join(tmpdir(), "gateway-test-"))
  await chmod(dir, 0o755) // PostgreSQL runs as the `postgres` user when we are root
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Scope.extend(startEmbeddedPostgres(dir, "postgres"), scope))
  project.provide("adminDatabaseUrl", url)
  project.provide("templateDatabase", await migratedTemplate(url))
  return async () => {
    try {
      await reconcile(url)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * Migrates one database once for the whole run, the template of `createMigratedTestDatabase`: a test
 * file's database is then a copy PostgreSQL makes in the time an empty one takes, instead of ~20
 * migrations and graphile-worker's schema applied again per file (docs/development.md "Test suite").
 * Its name is outside `gw_test_%`: the ledger check has no books to read in it. No connection may stay
 * open on it (PostgreSQL copies only a database nobody is connected to): its pool ends with the scope.
 */
const migratedTemplate = async (adminUrl: string): Promise<string> => {
  const name = `gw_template_${randomBytes(6).toString("hex")}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const migrated = MigrationsLive.pipe(
    Layer.provide(SqlLive),
    Layer.provide(Layer.scoped(PgPool, makePool(url.toString(), 2, false))),
    Layer.provide(NodeContext.layer)
  )
  await Effect.runPromise(
    Layer.build(migrated).pipe(Effect.scoped, Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))
  )
  return name
}

/**
 * The suite ends with the ledger check (docs/money.md): every balance of every test database is
 * recomputed from its postings; any difference fails the run.
 */
const reconcile = async (url: string) => {
  const discrepancies = await checkLedgers(url)
  if (discrepancies.length > 0) {
    process.exitCode = 1
    throw new Error(`ledger check failed:\n${JSON.stringify(discrepancies, null, 2)}`)
  }
  console.log("ledger check: every balance of every test database equals the sum of its postings")
}

/** An external server keeps nothing of the run: every per-file database and the template are dropped. */
const dropTestDatabases = async (url: string, template: string) => {
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    const { rows } = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname like 'gw\\_test\\_%'"
    )
    for (const { datname } of [...rows, { datname: template }])
      await admin.query(`drop database if exists ${datname} with (force)`)
  } finally {
    await admin.end()
  }
}
