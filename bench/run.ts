/**
 * npm run bench (issue 10): the charge path against the database's own limit, in one run, on one
 * PostgreSQL (embedded, or a fresh database on DATABASE_URL's server).
 *
 * 1. A parked backlog of future jobs (BENCH_BACKLOG, 100,000) so graphile-worker's plans are a used
 *    system's; orders made beforehand.
 * 2. The raw-SQL limit of a PIX charge (bench/raw.ts) at 8 and 32 clients.
 * 3. The real service as a separate process (`src/main.ts all`: API and worker, default logging),
 *    driven over HTTP by a closed-loop generator (bench/load.ts) at 8 and 32 clients: PIX on
 *    `POST /api/payment-gateway/process` (fresh Idempotency-Key) and on `POST /public/v1/transactions`;
 *    an authenticated GET against the unauthenticated `/health`.
 * 4. Verification of its own work (transactions, jobs and idempotency records written), then the
 *    result as JSON in bench/results/.
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { startEmbeddedPostgres } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { spawnRole } from "../test/support/processes.ts"
import { closedLoop, http, type LoadResult } from "./load.ts"
import { benchLists } from "./lists.ts"
import { benchRaw } from "./raw.ts"
import { benchWebhooks } from "./webhooks.ts"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000)
const ORDERS = 2_000
const CLIENTS = [8, 32] as const
const AMOUNT = 1_000

const TICK_MS = 10 // USER_HZ = 100 on Linux
/** CPU time a process has used so far, in ms (utime + stime from /proc). */
const cpuMs = async (pid: number) => {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}
/** The whole machine's busy and total CPU time so far, in ms (all cores). */
const machineMs = async () => {
  const cpu = (await readFile("/proc/stat", "utf8")).split("\n")[0]!.split(/\s+/).slice(1).map(Number)
  const total = cpu.reduce((a, b) => a + b, 0)
  return { busy: (total - cpu[3]! - cpu[4]!) * TICK_MS, total: total * TICK_MS }
}

const freshDatabase = async (serverUrl: string) => {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  const name = `gw_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** BENCH_OTEL=1: the service exports its traces to a local OTLP receiver that accepts and drops them. */
const startCollector = async () => {
  const collector = createServer((req, res) => {
    req.resume()
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"))
  })
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
  return collector
}

const main = async () => {
  const collector = process.env.BENCH_OTEL === "1" ? await startCollector() : undefined
  const dir = await mkdtemp(join(tmpdir(), "gateway-bench-"))
  await chmod(dir, 0o755)
  const scope = Effect.runSync(Scope.make())
  const server =
    process.env.DATABASE_URL ?? (await Effect.runPromise(Scope.extend(startEmbeddedPostgres(dir, "bench"), scope)))
  const databaseUrl = await freshDatabase(server)
  const service = await spawnRole(
    "all",
    {
      DATABASE_URL: databaseUrl,
      // Default logging (info), as the issue asks; the rate limit is raised per key below.
      LOG_LEVEL: "info",
      ...(collector
        ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as { port: number }).port}` }
        : {})
    },
    {
      // BENCH_PROFILE=<dir>: a CPU profile of the service, written when it stops.
      nodeArgs: process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []
    }
  )
  const db = new pg.Pool({ connectionString: databaseUrl, max: 4 })
  try {
    const origin = service.baseUrl
    const setup = http(origin, 4)
    const signup = JSON.parse(
      (
        await setup.request(
          "POST",
          "/api/auth/signup",
          { "content-type": "application/json" },
          JSON.stringify({ name: "Bench", email: `bench-${randomUUID()}@example.com`, password: "benchmark password" })
        )
      ).text
    )
    const apiKey: string = signup.apiKey.fullKey
    const accountId: string = signup.account.id
    await db.query("update api_keys set rate_limit = 100000000 where account_id = $1", [accountId])
    const customer = JSON.parse(
      (
        await setup.request(
          "POST",
          "/api/customers",
          { "content-type": "application/json", "x-api-key": apiKey },
          JSON.stringify({ name: "Buyer", email: "b@example.com", document: "52998224725", phone: "11912345678" })
        )
      ).text
    )
    // Orders made beforehand (a PENDING order takes any number of PIX attempts): charges spread over them.
    const { rows: orders } = await db.query<{ id: string }>(
      `insert into orders (id, account_id, customer_id, amount, status)
       select gen_random_uuid(), $1, $2, $3, 'PENDING' from generate_series(1, $4) returning id`,
      [accountId, customer.id, AMOUNT, ORDERS]
    )
    const orderIds = orders.map((o) => o.id)
    const parking = performance.now()
    // add_jobs (one call for a batch): add_job once per row slows down as the queue grows.
    for (let parked = 0; parked < BACKLOG; parked += 10_000) {
      await db.query(
        `select graphile_worker.add_jobs(array(
           select row('cleanup', '{}'::json, null, now() + interval '30 days', 1, null, 0, null)
                    ::graphile_worker.job_spec
           from generate_series(1, $1)))`,
        [Math.min(10_000, BACKLOG - parked)]
      )
    }
    await db.query("vacuum analyze")
    console.log(`${BACKLOG} future jobs parked in ${((performance.now() - parking) / 1000).toFixed(1)} s`)
    const count = async () =>
      (
        await db.query<{ transactions: number; jobs: number; keys: number }>(
          `select (select count(*)::int from transactions where account_id = $1) as transactions,
                  (select count(*)::int from graphile_worker.jobs where task_identifier = 'expire_transaction') as jobs,
                  (select count(*)::int from idempotency_keys where account_id = $1 and response_status = 201) as keys`,
          [accountId]
        )
      ).rows[0]!

    const results: Record<string, LoadResult & { serviceCpuMsPerRequest?: number; machineBusy?: number }> = {}
    /** Runs a scenario and notes the service's CPU per request and how busy the machine was. */
    const measured = async (run: () => Promise<LoadResult>) => {
      const [cpu0, m0] = [await cpuMs(service.child.pid!), await machineMs()]
      const result = await run()
      const [cpu1, m1] = [await cpuMs(service.child.pid!), await machineMs()]
      // Warm-up included in both: a ratio of the whole run.
      const requests = result.requests * (1 + 2 / SECONDS)
      return {
        ...result,
        serviceCpuMsPerRequest: (cpu1 - cpu0) / requests,
        machineBusy: (m1.busy - m0.busy) / (m1.total - m0.total)
      }
    }
    const checks: Array<string> = []
    const verify = async (name: string, before: Awaited<ReturnType<typeof count>>, result: LoadResult) => {
      const after = await count()
      const made = after.transactions - before.transactions
      // Warm-up requests are not counted in `result`: every counted one made exactly one of each.
      const ok = made >= result.requests && after.jobs - before.jobs === made && after.keys - before.keys === made
      const jobs = after.jobs - before.jobs
      const keys = after.keys - before.keys
      checks.push(`${name}: ${made} transactions, ${jobs} expiry jobs, ${keys} idempotency records${ok ? "" : " ✗"}`)
      if (!ok) throw new Error(`${name}: the service's work does not add up`)
    }

    const only = process.env.BENCH_ONLY
    for (const clients of only === undefined || only === "raw" ? CLIENTS : []) {
      console.log(`raw, ${clients} clients…`)
      const before = await count()
      results[`raw PIX charge, ${clients} clients`] = await measured(() =>
        benchRaw({ databaseUrl, apiKey, orderIds, amount: AMOUNT }, clients, SECONDS)
      )
      await verify(`raw ${clients}`, before, results[`raw PIX charge, ${clients} clients`]!)
    }

    const pixBody = (orderId: string) =>
      JSON.stringify({
        orderId,
        method: "PIX",
        amount: AMOUNT,
        buyerDoc: "52998224725",
        buyerCellNumber: "11912345678",
        buyerAddress: {
          postal_code: "01310100",
          street: "Av Paulista",
          number: "1",
          neighborhood: "Bela Vista",
          city: "São Paulo",
          state: "SP"
        }
      })
    const v1Body = JSON.stringify({
      method: "pix",
      amount: AMOUNT,
      customer: { name: "Maria Silva", email: "maria@example.com", document: "52998224725" }
    })
    for (const clients of only === undefined || only === "service" ? CLIENTS : []) {
      console.log(`service, ${clients} clients…`)
      const client = http(origin, clients)
      const headers = { "content-type": "application/json", "x-api-key": apiKey }
      let before = await count()
      const api = await measured(() =>
        closedLoop(clients, SECONDS, 2, async (i) => {
          const r = await client.request(
            "POST",
            "/api/payment-gateway/process",
            { ...headers, "idempotency-key": randomUUID() },
            pixBody(orderIds[i % orderIds.length]!)
          )
          return r.status
        })
      )
      results[`/api PIX process, ${clients} clients`] = api
      await verify(`/api ${clients}`, before, api)
      before = await count()
      const v1 = await measured(() =>
        closedLoop(clients, SECONDS, 2, async () => {
          const r = await client.request(
            "POST",
            "/public/v1/transactions",
            { "content-type": "application/json", authorization: `Bearer ${apiKey}`, "idempotency-key": randomUUID() },
            v1Body
          )
          return r.status
        })
      )
      results[`v1 PIX transaction, ${clients} clients`] = v1
      await verify(`v1 ${clients}`, before, v1)
      await client.close()
    }
    const reader = http(origin, 8)
    results["GET /health (unauthenticated), 8 clients"] = await closedLoop(8, SECONDS, 1, async () => {
      return (await reader.request("GET", "/health", {})).status
    })
    results[`GET /api/customers/{id} (API key + rate limit), 8 clients`] = await closedLoop(8, SECONDS, 1, async () => {
      return (await reader.request("GET", `/api/customers/${customer.id}`, { "x-api-key": apiKey })).status
    })
    await reader.close()
    await setup.close()

    // Issue 10 items 3 and 4: a 1,000,000-row list streamed by the service, and a webhook burst through
    // one worker process on a database of its own (the service's worker would share the work).
    const extra: Record<string, unknown> = {}
    if (process.env.BENCH_LISTS !== "0") {
      console.log("lists…")
      extra["lists"] = await benchLists(origin, db, apiKey, accountId, {
        pid: service.child.pid!,
        rows: Number(process.env.BENCH_LIST_ROWS ?? 1_000_000)
      })
    }
    if (process.env.BENCH_WEBHOOKS !== "0") {
      console.log("webhooks…")
      extra["webhooks"] = await benchWebhooks({ databaseUrl: await freshDatabase(server) })
    }

    const ratio = (a: string, b: string) =>
      (results[a]?.perSecond ?? Number.NaN) / (results[b]?.perSecond ?? Number.NaN)
    const ratios: Record<string, number> = {}
    for (const clients of CLIENTS) {
      const raw = `raw PIX charge, ${clients} clients`
      ratios[`/api PIX ÷ raw, ${clients} clients`] = ratio(`/api PIX process, ${clients} clients`, raw)
      ratios[`v1 PIX ÷ raw, ${clients} clients`] = ratio(`v1 PIX transaction, ${clients} clients`, raw)
      ratios[`/api PIX p99 ÷ raw p99, ${clients} clients`] =
        (results[`/api PIX process, ${clients} clients`]?.p99Ms ?? Number.NaN) / (results[raw]?.p99Ms ?? Number.NaN)
    }
    ratios["authenticated GET ÷ /health"] = ratio(
      "GET /api/customers/{id} (API key + rate limit), 8 clients",
      "GET /health (unauthenticated), 8 clients"
    )

    console.log(`\n${SECONDS} s per scenario after a warm-up, ${BACKLOG} parked jobs, ${cpus().length} cores\n`)
    console.log(
      "scenario".padEnd(58) +
        "req/s".padStart(9) +
        "p50 ms".padStart(9) +
        "p99 ms".padStart(9) +
        "svc cpu/req ms".padStart(16) +
        "busy".padStart(6)
    )
    for (const [name, r] of Object.entries(results)) {
      console.log(
        name.padEnd(58) +
          r.perSecond.toFixed(0).padStart(9) +
          r.p50Ms.toFixed(1).padStart(9) +
          r.p99Ms.toFixed(1).padStart(9) +
          (r.serviceCpuMsPerRequest === undefined ? "" : r.serviceCpuMsPerRequest.toFixed(2)).padStart(16) +
          (r.machineBusy === undefined ? "" : `${(100 * r.machineBusy).toFixed(0)}%`).padStart(6)
      )
    }
    console.log("")
    for (const [name, value] of Object.entries(ratios)) console.log(name.padEnd(58) + value.toFixed(2).padStart(9))
    console.log("")
    for (const line of checks) console.log(line)
    for (const [name, value] of Object.entries(extra)) console.log(`${name}: ${JSON.stringify(value)}`)

    await mkdir("bench/results", { recursive: true })
    const file = `bench/results/${new Date().toISOString().slice(0, 19).replaceAll(":", "")}.json`
    await writeFile(
      file,
      JSON.stringify(
        {
          at: new Date().toISOString(),
          tracing: collector !== undefined,
          cores: cpus().length,
          seconds: SECONDS,
          backlog: BACKLOG,
          results,
          ratios,
          checks,
          ...extra
        },
        null,
        2
      )
    )
    console.log(`\nwrote ${file}`)
  } finally {
    await db.end()
    await service.stop("SIGTERM")
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await rm(dir, { recursive: true, force: true })
    collector?.close()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
