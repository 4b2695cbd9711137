import { type ChildProcess, spawn } from "node:child_process"
import { chmod, chown, copyFile, mkdtemp, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { postmasterPid } from "./support/processes.ts"
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
/**
 * A Node that `nobody` can run: this one when every directory above it lets others through, else a copy in
 * `dir` (CI runs the suite on a Node under root's 0700 home, which another user cannot reach).
 */
const nodeFor = async (dir: string) => {
  let path = process.execPath
  let reachable = true
  while (reachable && path !== dirname(path)) {
    reachable = ((await stat(path)).mode & 0o001) !== 0
    path = dirname(path)
  }
  if (reachable) return process.execPath
  const copy = join(dir, "node")
  await copyFile(process.execPath, copy)
  await chmod(copy, 0o755)
  return copy
}

describe.skipIf(!isRoot)("the service started by a user who is not root", () => {
  it("initialises its embedded PostgreSQL and answers /ready 200", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "startup-non-root-"))
    const node = await nodeFor(dataDir)
    await chown(dataDir, NOBODY, NOBODY)
    const port = await freePort()
    const { DATABASE_URL: _, ...inherited } = process.env
    // As such a user runs it: `npm start`'s launcher, which builds into a private cache of its own when the
    // project's node_modules/.cache is not theirs (here under the test's DATA_DIR).
    child = spawn(node, [join(ROOT, "scripts", "start.mjs"), "main", "api"], {
      cwd: ROOT,
      uid: NOBODY,
      gid: NOBODY,
      env: {
        ...inherited,
        HOME: dataDir,
        XDG_CACHE_HOME: join(dataDir, "cache"),
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
