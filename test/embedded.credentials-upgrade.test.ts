import { chmod, mkdtemp, rm, unlink } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { passwordFile } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { embeddedDatabaseUrl, postmasterPid, type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

/**
 * Upgrading a DATA_DIR whose cluster still has the legacy password while its postmaster is running (an
 * old-version service killed outright leaves it running, or an old service or CLI still uses the DATA_DIR):
 * the new process wrote DATA_DIR/pg-password, connected with it and failed, and from then on no start ever
 * changed the password, locking the DATA_DIR out. What the cluster answers decides now (EmbeddedPostgres.ts
 * `ensureOwnPassword`).
 */
let services: Array<RoleProcess | undefined> = []
let dataDir: string | undefined
afterAll(async () => {
  await stopAll(services)
  if (dataDir !== undefined) {
    const pid = postmasterPid(dataDir)
    if (pid !== undefined) process.kill(pid, "SIGKILL")
    await rm(dataDir, { recursive: true, force: true })
  }
})

const waitExit = (service: RoleProcess) =>
  new Promise<void>((done) => {
    if (service.child.exitCode !== null || service.child.signalCode !== null) return done()
    service.child.once("exit", () => done())
  })

describe("a legacy cluster already running at the upgrade", () => {
  it("a new start on a legacy cluster whose postmaster is still up works, and so does the start after", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "gateway-review-pgpw-"))
    await chmod(dataDir, 0o755)
    const first = await spawnRole("all", {}, { embedded: true, dataDir, readyTimeoutMs: 180_000 })
    services.push(first)
    // Make it a cluster of before: the legacy password, no password file; its postmaster left running, as
    // an old-version service killed outright leaves it (or as the old service still running it does).
    const admin = new pg.Client({ connectionString: embeddedDatabaseUrl(dataDir) })
    await admin.connect()
    await admin.query(`alter role postgres password 'gateway'`)
    await admin.end()
    first.child.kill("SIGKILL")
    await waitExit(first)
    expect(postmasterPid(dataDir)).toBeDefined()
    await unlink(passwordFile(dataDir))

    // The upgraded service starts beside the running legacy postmaster.
    let sharedStart: string = "ready"
    await spawnRole("all", {}, { embedded: true, dataDir, readyTimeoutMs: 90_000 }).then(
      (s) => services.push(s),
      (e: unknown) => {
        sharedStart = String(e).slice(0, 600)
      }
    )

    // The operator stops everything and starts again: this process now starts the postmaster itself.
    await stopAll(services)
    services = []
    const pid = postmasterPid(dataDir)
    if (pid !== undefined) process.kill(pid, "SIGKILL")
    await new Promise((r) => setTimeout(r, 1000))
    let laterStart: string = "ready"
    await spawnRole("all", {}, { embedded: true, dataDir, readyTimeoutMs: 120_000 }).then(
      (s) => services.push(s),
      (e: unknown) => {
        laterStart = String(e).slice(0, 600)
      }
    )
    expect({ sharedStart, laterStart }).toEqual({ sharedStart: "ready", laterStart: "ready" })
  }, 480_000)
})
