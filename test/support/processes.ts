import { type ChildProcess, execFile, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ROOT, serviceEntry } from "./compiled.ts"
import { freePort } from "./config.ts"
import { passwordFile } from "../../src/adapters/postgres/EmbeddedPostgres.ts"

export { serviceEntry } from "./compiled.ts"

/** Keep only the tail of a child's output for error messages. */
const OUTPUT_LIMIT = 16_384

export interface RoleProcess {
  readonly role: "api" | "worker" | "all"
  readonly port: number
  readonly baseUrl: string
  /** GET /metrics on the process's metrics listener (METRICS_PORT, loopback). */
  readonly metricsUrl: string
  readonly child: ChildProcess
  /** Its DATA_DIR (the embedded PostgreSQL's data is under `pg/` when no DATABASE_URL is given). */
  readonly dataDir: string
  /** stdout and stderr so far (the last 16 KiB of each). */
  readonly output: () => string
  /**
   * Sends `signal`, waits for the exit (SIGKILL after 10 s) and resolves with the exit code, or
   * `null` when the process died from a signal. Idempotent: a second call resolves with the same result.
   */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/** Every child still running, so a failing test, a failing hook or a dying worker never leaves one behind. */
const live = new Set<ChildProcess>()
/** The CARD_VAULT_KEY of every process a test spawns (32 bytes, base64), unless the test sets its own. */
const SHARED_CARD_VAULT_KEY = Buffer.alloc(32, 7).toString("base64")

/** How to stop each child `spawnRole` started (its embedded PostgreSQL and DATA_DIR with it). */
const stoppers = new Map<ChildProcess, () => Promise<unknown>>()
let exitHookInstalled = false
const installExitHook = () => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  // Synchronous last resort when the test process itself goes away (crash, vitest tearing the fork down).
  process.once("exit", () => {
    for (const child of live) child.kill("SIGKILL")
  })
}

const capture = (child: ChildProcess) => {
  let stdout = ""
  let stderr = ""
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout = (stdout + chunk).slice(-OUTPUT_LIMIT)
  })
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-OUTPUT_LIMIT)
  })
  return () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode })
    } else {
      // "close", not "exit": by then stdout and stderr are fully read.
      child.once("close", (code, signal) => resolve({ code, signal }))
    }
  })

/** The postmaster of an embedded PostgreSQL under `dataDir`, if one runs (postmaster.pid, line 1). */
export const postmasterPid = (dataDir: string): number | undefined => {
  try {
    const pid = Number(readFileSync(join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0])
    process.kill(pid, 0)
    return pid
  } catch {
    return undefined
  }
}

/** The connection string of the embedded PostgreSQL a service runs under `dataDir` (port on line 4). */
export const embeddedDatabaseUrl = (dataDir: string) => {
  const port = Number(readFileSync(join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[3])
  const password = readFileSync(passwordFile(dataDir), "utf8").trim()
  return `postgres://postgres:${password}@127.0.0.1:${port}/gateway`
}

/** A SIGKILLed service leaves its embedded PostgreSQL running: nothing of a test may outlive it. */
const killEmbeddedPostgres = (dataDir: string) => {
  const pid = postmasterPid(dataDir)
  if (pid !== undefined) process.kill(pid, "SIGKILL")
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Runs `src/main.ts <role>` (compiled once per state of src/: test/support/compiled.ts) as a child
 * process on a free loopback port, with its own temporary DATA_DIR (or `options.dataDir`, kept when it
 * stops), and resolves once `GET /ready` answers 200 (rejects after `readyTimeoutMs`, or as soon as the
 * child exits, with its output in the message).
 * `env` is applied last, so it may override any of the defaults. For role `worker`, which serves no
 * HTTP, it resolves once the process is spawned.
 */
export const spawnRole = async (
  role: "api" | "worker" | "all",
  env: Record<string, string>,
  options: {
    readonly readyTimeoutMs?: number
    readonly nodeArgs?: ReadonlyArray<string>
    /** Run the embedded PostgreSQL under DATA_DIR even if the test run has a DATABASE_URL. */
    readonly embedded?: boolean
    readonly dataDir?: string
  } = {}
): Promise<RoleProcess> => {
  installExitHook()
  const entry = await serviceEntry()
  const port = await freePort()
  const metricsPort = await freePort()
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), `gateway-${role}-`)))
  // As root, the embedded PostgreSQL runs as `postgres`, who must reach its data (mkdtemp makes 0700).
  if (options.embedded) await chmod(dataDir, 0o755)
  const { DATABASE_URL: _, ...inherited } = process.env
  const baseUrl = `http://127.0.0.1:${port}`
  // The flags of `npm start` (package.json), so that what tests and the bench run is what ships.
  const nodeFlags = ["--max-semi-space-size=32", ...(options.nodeArgs ?? [])]
  const child = spawn(process.execPath, [...nodeFlags, ...entry.main, role], {
    cwd: ROOT,
    env: {
      ...(options.embedded ? inherited : process.env),
      PORT: String(port),
      HOST: "127.0.0.1",
      METRICS_PORT: String(metricsPort),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warning",
      // The processes of one test share their secrets, as a deployment's do (docs/deployment.md): each
      // DATA_DIR would otherwise make its own, and one process's idempotency fingerprints, antifraud
      // counters and vaulted cards would mean nothing to another.
      CARD_VAULT_KEY: SHARED_CARD_VAULT_KEY,
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  live.add(child)
  const output = capture(child)
  const exit = exited(child)
  void exit.then(() => live.delete(child))

  let stopping: Promise<number | null> | undefined
  const stop = (signal: NodeJS.Signals = "SIGTERM") => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
      const { code } = await exit
      clearTimeout(timer)
      if (options.embedded) killEmbeddedPostgres(dataDir)
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true })
      stoppers.delete(child)
      return code
    })()
    return stopping
  }

  // Until stopped: a child the test killed itself may still leave its embedded PostgreSQL and DATA_DIR.
  stoppers.set(child, () => stop("SIGKILL"))

  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
  const processHandle: RoleProcess = { role, port, baseUrl, metricsUrl, child, dataDir, output, stop }
  if (role === "worker") return processHandle

  const timeoutMs = options.readyTimeoutMs ?? 30_000
  const deadline = Date.now() + timeoutMs
  let died: { code: number | null; signal: NodeJS.Signals | null } | undefined
  void exit.then((result) => {
    died = result
  })
  let lastProblem = "no answer yet"
  while (Date.now() < deadline) {
    if (died) {
      await stop()
      throw new Error(
        `${role} process exited (code ${died.code}, signal ${died.signal}) before /ready answered 200\n${output()}`
      )
    }
    try {
      const response = await fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(2_000) })
      await response.arrayBuffer()
      if (response.status === 200) return processHandle
      lastProblem = `GET /ready answered ${response.status}`
    } catch (error) {
      lastProblem = String(error)
    }
    await sleep(100)
  }
  await stop("SIGKILL")
  throw new Error(`${role} process not ready within ${timeoutMs} ms (${lastProblem})\n${output()}`)
}

/**
 * Kills every child a test file left running (test/support/setup.ts runs it after each file): test files
 * share their fork (vitest.config.ts, `isolate: false`), whose exit no longer ends a file's children.
 */
export const stopLeftovers = async () => {
  await Promise.all([...stoppers.values()].map((stop) => stop()))
  for (const child of live) child.kill("SIGKILL")
}

/** Stops every child this module started that is still running (for afterAll). */
export const stopAll = async (processes: ReadonlyArray<RoleProcess | undefined>) => {
  await Promise.all(processes.map((p) => p?.stop()))
  for (const child of live) child.kill("SIGKILL")
}

/**
 * Runs the operator CLI (`src/cli.ts …args`, compiled like `spawnRole`'s) as an operator would, with `env` and
 * without the test run's own DATABASE_URL, and answers its exit code and output whatever they are: for what it
 * says when it fails.
 */
export const runCliOutput = async (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  timeoutMs = 60_000
): Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }> => {
  const entry = await serviceEntry()
  const { DATABASE_URL: _, ...inherited } = process.env
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...entry.cli, ...args],
      { cwd: ROOT, env: { ...inherited, LOG_LEVEL: "warning", ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })
    )
  })
}

/**
 * Runs the operator CLI (`src/cli.ts …args`, compiled like `spawnRole`'s) to completion and returns its parsed JSON
 * output; rejects with the output when it exits non-zero or does not finish within `timeoutMs`.
 */
export const runCli = async <T = unknown>(
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  timeoutMs = 30_000
): Promise<T> => {
  installExitHook()
  const entry = await serviceEntry()
  const dataDir = await mkdtemp(join(tmpdir(), "gateway-cli-"))
  const child = spawn(process.execPath, [...entry.cli, ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warning", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  live.add(child)
  let stdout = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
  })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-OUTPUT_LIMIT)
  })
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
  const { code, signal } = await exited(child)
  clearTimeout(timer)
  live.delete(child)
  await rm(dataDir, { recursive: true, force: true })
  if (code !== 0) throw new Error(`cli ${args.join(" ")} exited (code ${code}, signal ${signal})\n${stdout}\n${stderr}`)
  try {
    return JSON.parse(stdout) as T
  } catch {
    throw new Error(`cli ${args.join(" ")} printed no JSON:\n${stdout}\n${stderr}`)
  }
}
