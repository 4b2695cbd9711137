import { type ChildProcess, spawn } from "node:child_process"
import { chown, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { postmasterPid, serviceEntry } from "./support/processes.ts"
import { freePort } from "./support/config.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const NOBODY = 65534
const isRoot = process.getuid?.() === 0

let child: ChildProcess | undefined
let dataDir: string | undefined
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  if (dataDir) {
    const pid = postmasterPid(dataDir)
    if (pid !== undefined) process.kill(pid, "SIGKILL")
    await rm(dataDir, { recursive: true, force: true })
  }
})

/**
 * `npm start` as an ordinary (non-root) user, with a DATA_DIR of its own: the embedded PostgreSQL runs as
 * that user (docs/operations.md "Nothing moves when the process is not root"). The library was always asked
 * to create a `postgres` system user, which only root may (`groupadd`): a fresh DATA_DIR never started. The
 * test runs as root and drops to `nobody` for the child.
 */
describe.skipIf(!isRoot)("the service started by a user who is not root", () => {
  it("initialises its embedded PostgreSQL and answers /ready 200", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "startup-non-root-"))
    await chown(dataDir, NOBODY, NOBODY)
    const port = await freePort()
    const { DATABASE_URL: _, ...inherited } = process.env
    child = spawn(process.execPath, [...(await serviceEntry()).main, "api"], {
      cwd: ROOT,
      uid: NOBODY,
      gid: NOBODY,
      env: {
        ...inherited,
        HOME: dataDir,
        DATA_DIR: dataDir,
        HOST: "127.0.0.1",
        PORT: String(port),
        METRICS_PORT: String(await freePort()),
        LOG_LEVEL: "warning"
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout!.setEncoding("utf8").on("data", (c: string) => (output += c))
    child.stderr!.setEncoding("utf8").on("data", (c: string) => (output += c))
    let status = 0
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline && child.exitCode === null) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(2_000) })
        await response.arrayBuffer()
        status = response.status
        if (status === 200) break
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(status, `exit ${child.exitCode}\n${output}`).toBe(200)
    const exited = new Promise((resolve) => child!.once("close", (code) => resolve(code)))
    child.kill("SIGTERM")
    expect(await exited).toBe(0)
  }, 90_000)
})
