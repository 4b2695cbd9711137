import { randomBytes } from "node:crypto"
import pg from "pg"
import { inject } from "vitest"

/** A fresh, empty database on the run's server; the server under test migrates it. */
export const createTestDatabase = async (): Promise<string> => {
  const admin = new pg.Client({ connectionString: inject("adminDatabaseUrl") })
  await admin.connect()
  const name = `gw_test_${randomBytes(6).toString("hex")}`
  try {
    await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(inject("adminDatabaseUrl"))
  url.pathname = `/${name}`
  return url.toString()
}
