import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import type { TestProject } from "vitest/node"
import { startEmbeddedPostgres } from "../../src/adapters/postgres/EmbeddedPostgres.ts"
import { checkLedgers } from "./ledger-check.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** A server where each test file creates its own database. */
    adminDatabaseUrl: string
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
    return async () => {
      try {
        await reconcile(url)
      } finally {
        await dropTestDatabases(url)
      }
    }
  }
  const dir = await mkdtemp(join(tmpdir(), "gateway-test-"))
  await chmod(dir, 0o755) // PostgreSQL runs as the `postgres` user when we are root
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Scope.extend(startEmbeddedPostgres(dir, "postgres"), scope))
  project.provide("adminDatabaseUrl", url)
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
 * The suite ends with the ledger check (README "Money"): every balance of every test database is
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

/** An external server keeps nothing of the run: every per-file database is dropped. */
const dropTestDatabases = async (url: string) => {
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    const { rows } = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname like 'gw\\_test\\_%'"
    )
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`)
  } finally {
    await admin.end()
  }
}
