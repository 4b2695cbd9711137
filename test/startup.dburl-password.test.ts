/**
 * The start-up line of an unreachable DATABASE_URL hides its password (docs/operations.md "Start-up errors":
 * "the URL with `***` for the password"), also one given in the query (`?password=`), which pg reads as
 * libpq's URIs allow.
 */
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import pgConnectionString from "pg-connection-string"
import { freePort } from "./support/config.ts"
import { spawnRole } from "./support/processes.ts"

describe("DATABASE_URL with its password in the query", () => {
  it("pg does authenticate with that password", () => {
    expect(pgConnectionString.parse("postgres://gateway@127.0.0.1:5432/gateway?password=s3cret").password).toBe(
      "s3cret"
    )
  })

  it("is not printed in clear when the database is unreachable", async () => {
    const secret = `pw${randomBytes(12).toString("hex")}`
    const closed = await freePort() // nothing listens there: connection refused
    const url = `postgres://gateway@127.0.0.1:${closed}/gateway?password=${secret}`
    let output = ""
    try {
      const p = await spawnRole("api", { DATABASE_URL: url, LOG_LEVEL: "info" }, { readyTimeoutMs: 30_000 })
      await p.stop()
      throw new Error("the service started without its database")
    } catch (error) {
      output = String((error as Error).message)
    }
    expect(output).toMatch(/cannot connect to the PostgreSQL of DATABASE_URL/)
    expect(output).not.toContain(secret)
  }, 60_000)
})
