/**
 * The memory and start-up time of `npm start` as a user runs it (`npm run bench:memory`;
 * docs/performance.md "Memory of npm start"): `npm start` itself (the launcher building or reusing the
 * compiled service, the embedded PostgreSQL, API and worker in one process), twice:
 * - the first start as after `npm ci`: no compiled build in the cache, a fresh DATA_DIR (initdb);
 *   measured from /proc 2 s after `/ready` answers, again MEMORY_IDLE_SECONDS [30] after (V8's memory
 *   reducer has shrunk the heap start-up grew by then), and after a few hundred requests;
 * - a warm start: the same sources (build cached) and the same DATA_DIR; measured 2 and 30 s after ready.
 * Each time to `/ready` 200 is from the spawn of `npm start`. The figures and the load average beside
 * each are written as JSON under bench/results/ (memory-<time>.json).
 *
 * The service process is reported by its RSS (VmRSS). PostgreSQL is a postmaster and its backends sharing
 * shared_buffers, so summing their RSS would count the shared pages once per process: they are reported
 * by PSS (each shared page divided among the processes mapping it), whose sum is what they take together.
 * npm and the shell it starts are left out (they are not the service; npm is ~60 MB that `start:prod`
 * does not have). `MEMORY_KEEP_CACHE=1` keeps the compiled build for the first start.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync } from "node:fs"
import { mkdir, writeFile } from "node:fs/promises"
import { cpus, getPriority, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const port = Number(process.env.MEMORY_PORT ?? 3999)
const requests = Number(process.env.MEMORY_REQUESTS ?? 300)
// V8's memory reducer shrinks the heap (the young generation grown by start-up) after some seconds idle.
const settle = Number(process.env.MEMORY_IDLE_SECONDS ?? 30)
const base = `http://127.0.0.1:${port}`
const dataDir = mkdtempSync(join(tmpdir(), "gateway-memory-"))
// PostgreSQL runs as an unprivileged user when started by root: the data's parent must be traversable.
chmodSync(dataDir, 0o755)

const ROOT = fileURLToPath(new URL("..", import.meta.url))

const start = () =>
  spawn("npm", ["start"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: join(dataDir, "data"),
      LOG_LEVEL: "warning",
      RATE_LIMIT_PER_MINUTE: "100000"
    },
    stdio: ["ignore", "inherit", "inherit"],
    detached: true
  })

const children = (pid: number): Array<number> =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8")
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid
      } catch {
        return false
      }
    })
    .map(Number)
const tree = (pid: number): Array<number> => [pid, ...children(pid).flatMap(tree)]
const kib = (pid: number, file: string, field: string) => {
  const match = readFileSync(`/proc/${pid}/${file}`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))
  return match ? Number(match[1]) : 0
}
const command = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")

const load = () => Number(loadavg()[0]!.toFixed(1))
const mb = (k: number) => Math.round(k / 1024)

interface Measure {
  readonly serviceRssMB: number
  readonly postgresPssMB: number
  readonly postgresProcesses: number
  readonly togetherMB: number
  readonly load1: number
}

const measure = (npm: ChildProcess, label: string): Measure => {
  let service = 0
  let postgres = 0
  let backends = 0
  for (const pid of tree(npm.pid!)) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim()
      // The thread name: "node", or "node-MainThread" from Node 24 on.
      if (comm.startsWith("node") && command(pid).includes("scripts/start.mjs")) service += kib(pid, "status", "VmRSS")
      else if (comm === "postgres") {
        postgres += kib(pid, "smaps_rollup", "Pss")
        backends++
      }
    } catch {
      // the process ended meanwhile
    }
  }
  const result = {
    serviceRssMB: mb(service),
    postgresPssMB: mb(postgres),
    postgresProcesses: backends,
    togetherMB: mb(service + postgres),
    load1: load()
  }
  const pg = `PostgreSQL (${backends} processes, PSS) ${result.postgresPssMB} MB`
  const together = `together ${result.togetherMB} MB (load ${result.load1})`
  console.log(`${label}: service (node, RSS) ${result.serviceRssMB} MB · ${pg} · ${together}`)
  return result
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a bench reads a few known fields
  const json: any = await response.json()
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const CLOCK_TICKS = 100

const untilReady = async (npm: ChildProcess, label: string) => {
  const started = Date.now()
  for (;;) {
    try {
      if ((await fetch(`${base}/ready`)).status === 200) break
    } catch {
      // not listening yet
    }
    if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}`)
    if (Date.now() - started > 120_000) throw new Error("not ready within 120 s")
    await sleep(50)
  }
  const seconds = Number(((Date.now() - started) / 1000).toFixed(2))
  // The service's own CPU until ready (utime + stime), which the machine's load does not inflate as it
  // does the wall time. A first start's includes the build.
  const cpu = tree(npm.pid!)
    .filter((pid) => {
      try {
        return command(pid).includes("scripts/start.mjs")
      } catch {
        return false
      }
    })
    .map((pid) => {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
    })
    .reduce((a, b) => a + b, 0)
  const cpuSeconds = Number(cpu.toFixed(2))
  console.log(`${label}: ready in ${seconds} s, ${cpuSeconds} s of the service's CPU (load ${load()})`)
  return { readySeconds: seconds, serviceCpuSeconds: cpuSeconds, load1: load() }
}

const stop = async (npm: ChildProcess) => {
  const exited = new Promise((resolve) => npm.once("exit", resolve))
  process.kill(-npm.pid!, "SIGTERM")
  await exited
  await sleep(1_000)
}

const requestsMade = async () => {
  const signup = await call(
    "POST",
    "/api/auth/signup",
    {},
    { name: "Loja", email: "m@example.com", password: "a long password" }
  )
  const auth = { authorization: `Bearer ${signup.apiKey.fullKey}` }
  // A third each: v1 PIX charges, the buyer paying them in the sandbox, and reads of the transaction list page.
  const third = Math.ceil(requests / 3)
  for (let i = 0; i < third; i++) {
    const charge = await call("POST", "/public/v1/transactions", auth, {
      method: "pix",
      amount: 1_000 + i,
      customer: { name: "Maria Silva", email: "maria@example.com", document: "12345678909" }
    })
    await call("POST", `/api/sandbox/transactions/${charge.data.hash}/pay`, { "x-api-key": signup.apiKey.fullKey })
    await call("GET", "/public/v1/transactions?per_page=20", auth)
  }
  return third * 3 + 1
}

let npm: ChildProcess | undefined
try {
  // As after `npm ci`: nothing compiled yet (the launcher's cache; docs/development.md "Running compiled").
  if (process.env.MEMORY_KEEP_CACHE !== "1")
    rmSync(join(ROOT, "node_modules", ".cache", "gateway-start"), { recursive: true, force: true })
  npm = start()
  const first = await untilReady(npm, "first start (build, initdb)")
  await sleep(2_000)
  const firstIdle = measure(npm, "first start, 2 s after ready")
  await sleep((settle - 2) * 1000)
  const firstSettled = measure(npm, `first start, ${settle} s after ready`)
  const made = await requestsMade()
  await sleep(2_000)
  const afterRequests = measure(npm, `after ${made} requests`)
  await stop(npm)

  npm = start()
  const warm = await untilReady(npm, "warm start (cached build, existing DATA_DIR)")
  await sleep(2_000)
  const warmIdle = measure(npm, "warm start, 2 s after ready")
  await sleep((settle - 2) * 1000)
  const warmSettled = measure(npm, `warm start, ${settle} s after ready`)
  await stop(npm)
  npm = undefined

  await mkdir(join(ROOT, "bench/results"), { recursive: true })
  const file = join(ROOT, `bench/results/memory-${new Date().toISOString().slice(0, 19).replaceAll(":", "")}.json`)
  const result = {
    node: process.versions.node,
    command: "npm run bench:memory",
    cores: cpus().length,
    nice: getPriority(),
    first: { ...first, idle: firstIdle, [`idle ${settle} s`]: firstSettled, [`after ${made} requests`]: afterRequests },
    warm: { ...warm, idle: warmIdle, [`idle ${settle} s`]: warmSettled }
  }
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`)
  console.log(`written ${file}`)
} finally {
  if (npm) await stop(npm)
  rmSync(dataDir, { recursive: true, force: true })
}
