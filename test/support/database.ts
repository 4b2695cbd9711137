import { randomBytes } from "node:crypto"
import pg from "pg"
import { inject } from "vitest"

/** A new database on the run's server, created by `create database <name> <clause>`. */
const createDatabase = async (clause: string): Promise<string> => {
  const admin = new pg.Client({ connectionString: inject("adminDatabaseUrl") })
  await admin.connect()
  const name = `gw_test_${randomBytes(6).toString("hex")}`
  try {
    await admin.query(`create database ${name} ${clause}`)
  } finally {
    await admin.end()
  }
  const url = new URL(inject("adminDatabaseUrl"))
  url.pathname = `/${name}`
  return url.toString()
}

/**
 * A fresh, empty database on the run's server; the server under test migrates it. For the tests
 * about migrating (an empty database, processes racing to migrate it); every other test takes
 * `createMigratedTestDatabase`, which costs nothing per file.
 */
export const createTestDatabase = (): Promise<string> => createDatabase("")

/**
 * A fresh database holding every migration (ours and graphile-worker's) and no rows: a copy of the
 * template the run migrated once (test/support/global-setup.ts), made by PostgreSQL in the time an
 * empty database takes. The service started on it finds nothing to apply. docs/development.md
 * "Test suite".
 */
export const createMigratedTestDatabase = (): Promise<string> => {
  const template = inject("templateDatabase")
  return template ? createDatabase(`template ${template}`) : createDatabase("")
}
