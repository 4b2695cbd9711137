/**
 * The memory of `npm start` as a user runs it (`npm run bench:memory`; docs/performance.md "Memory of
 * npm start"): `npm start` itself (tsx, the embedded PostgreSQL, API and worker in one process) in a fresh
 * DATA_DIR, measured from /proc once `/ready` answers and again after a few hundred requests.
 *
 * The service process is reported by its RSS (VmRSS). PostgreSQL is a postmaster and its backends sharing
 * shared_buffers, so summing their RSS would count the shared pages once per process: they are reported
 * by PSS (each shared page divided among the processes mapping it), whose sum is what they take together.
 * npm and the shell it starts are left out (they are not the service; npm is ~60 MB that `start:prod`
 * does not have).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const port = Number(process.env.MEMORY_PORT ?? 3999)
const requests = Number(process.env.MEMORY_REQUESTS ?? 300)
const base = `http://127.0.0.1:${port}`
const dataDir = mkdtempSync(join(tmpdir(), "gateway-memory-"))
// PostgreSQL runs as an unprivileged user when started by root: the data's parent must be traversable.
chmodSync(dataDir, 0o755)

const npm = spawn("npm", ["start"], {
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

const measure = (label: string) => {
  let service = 0
  let postgres = 0
  let backends = 0
  for (const pid of tree(npm.pid!)) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim()
      // The thread name: "node", or "node-MainThread" from Node 24 on.
      if (comm.startsWith("node") && command(pid).includes("src/main.ts")) service += kib(pid, "status", "VmRSS")
      else if (comm === "postgres") {
        postgres += kib(pid, "smaps_rollup", "Pss")
        backends++
      }
    } catch {
      // the process ended meanwhile
    }
  }
  const mb = (k: number) => Math.round(k / 1024)
  const pg = `PostgreSQL (${backends} processes, PSS) ${mb(postgres)} MB`
  console.log(`${label}: service (node, RSS) ${mb(service)} MB · ${pg} · together ${mb(service + postgres)} MB`)
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

try {
  const started = Date.now()
  for (;;) {
    try {
      if ((await fetch(`${base}/ready`)).status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 120_000) throw new Error("not ready within 120 s")
    await sleep(250)
  }
  console.log(
    `ready in ${((Date.now() - started) / 1000).toFixed(1)} s (npm start, embedded PostgreSQL, fresh DATA_DIR)`
  )
  await sleep(2_000)
  measure("after start")

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
  await sleep(2_000)
  measure(`after ${third * 3 + 1} requests`)
} finally {
  process.kill(-npm.pid!, "SIGTERM")
  await new Promise((resolve) => npm.once("exit", resolve))
  await sleep(1_000)
  rmSync(dataDir, { recursive: true, force: true })
}
