import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "./support/database.ts"
import { runCliOutput } from "./support/processes.ts"

/**
 * Issue 23 item 2: the CLI opens the service's database (same DATA_DIR default, same placement as
 * root: test/startup.private-dir.test.ts proves it finds the service's account); when what it opened
 * holds no account it says which database that was, instead of working in a second, empty one in silence.
 */

const cli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCliOutput(args, env)

describe("the CLI names the database it opened when it holds no account", () => {
  const dirs: Array<string> = []
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })

  it("an embedded database it had to create: the directory, that it is new and empty, and the way out", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "gateway-cli-empty-"))
    await chmod(dataDir, 0o755) // PostgreSQL runs as `postgres` when we are root
    dirs.push(dataDir)
    const { code, stdout, stderr } = await cli(["ledger", "check"], { DATA_DIR: dataDir })
    expect(code, stderr).toBe(0)
    expect(JSON.parse(stdout)).toEqual({ ok: true, discrepancies: [] }) // stdout stays JSON
    expect(stderr).toContain(`the embedded PostgreSQL with its data in ${join(dataDir, "pg")}`)
    expect(stderr).toContain("created by this command")
    expect(stderr).toContain("it has no accounts")
    expect(stderr).toContain("run the CLI with the service's DATA_DIR or DATABASE_URL")
  }, 90_000)

  it("an empty DATABASE_URL: named with its password hidden, before the command fails", async () => {
    const url = new URL(await createTestDatabase())
    const { code, stderr } = await cli(["keys", "create", "--account", "ze@example.com", "--scopes", "orders:read"], {
      DATABASE_URL: url.toString()
    })
    expect(code).toBe(1)
    const shown = new URL(url)
    if (shown.password) shown.password = "***"
    expect(stderr).toContain(`opened the PostgreSQL of DATABASE_URL (${shown.toString()}), which already existed`)
    expect(stderr).toContain("it has no accounts")
    expect(stderr).toContain("no account with email or id ze@example.com")
  }, 90_000)
})
