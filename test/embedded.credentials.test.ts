import { chmod, mkdtemp, rm, stat, unlink } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { passwordFile } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { embeddedDatabaseUrl, type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

/**
 * `npm start`'s embedded PostgreSQL listens on loopback TCP. Its superuser's password was "gateway" on
 * every installation, so any local user could log in as superuser (every account, key digest and charge;
 * `COPY … TO PROGRAM`). Now each DATA_DIR has its own, random, kept in DATA_DIR/pg-password (0600), and a
 * cluster made before gets its own at its next start (src/adapters/postgres/EmbeddedPostgres.ts).
 */
const LEGACY = "gateway"
let service: RoleProcess | undefined
let dataDir: string | undefined
afterAll(async () => {
  await stopAll([service])
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
})

/** Whether the superuser logs in with `password` on the cluster `dataDir`'s service runs. */
const logsIn = async (password: string) => {
  const url = new URL(embeddedDatabaseUrl(dataDir!))
  url.password = password
  const client = new pg.Client({ connectionString: url.toString() })
  return client.connect().then(
    async () => {
      await client.end()
      return true
    },
    () => false
  )
}

describe("the embedded PostgreSQL's superuser password", () => {
  it("is the DATA_DIR's own, not a well-known one; a cluster made with the old one gets its own", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "gateway-credentials-"))
    await chmod(dataDir, 0o755)
    service = await spawnRole("all", {}, { embedded: true, dataDir, readyTimeoutMs: 120_000 })
    expect(await logsIn(LEGACY)).toBe(false)
    const own = new URL(embeddedDatabaseUrl(dataDir)).password
    expect(own).toMatch(/^[0-9a-f]{48}$/)
    expect(await logsIn(own)).toBe(true)
    expect((await stat(passwordFile(dataDir))).mode & 0o777).toBe(0o600)

    // A cluster of before: the legacy password, and no password file.
    const admin = new pg.Client({ connectionString: embeddedDatabaseUrl(dataDir) })
    await admin.connect()
    await admin.query(`alter role postgres password '${LEGACY}'`)
    await admin.end()
    await stopAll([service])
    service = undefined
    await unlink(passwordFile(dataDir))

    service = await spawnRole("all", {}, { embedded: true, dataDir, readyTimeoutMs: 120_000 })
    const changed = new URL(embeddedDatabaseUrl(dataDir)).password
    expect(changed).not.toBe(own)
    expect(await logsIn(LEGACY)).toBe(false)
    expect(await logsIn(changed)).toBe(true)
    const ready = await fetch(`${service.baseUrl}/ready`)
    expect(ready.status).toBe(200)
  }, 300_000)
})
