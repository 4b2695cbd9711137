/**
 * CPU per request at a fixed count (issue 22 §2, docs/performance.md "Issue 22"): the service's and
 * PostgreSQL's CPU time (from /proc) divided by a fixed number of requests, which depends much less on
 * how fast a shared machine happens to be that minute than a rate does. An embedded PostgreSQL, the
 * service as `npm run bench` starts it, 100,000 parked jobs, then for each scenario a warm-up and
 * BENCH_N (2,000) requests by BENCH_CLIENTS (8) clients:
 *
 *   tsx bench/cpu.ts                         # /api PIX, v1 PIX, authenticated GETs, /health
 *   BENCH_ONLY="auth GET" tsx bench/cpu.ts   # one of them
 *   BENCH_PGSS=1 tsx bench/cpu.ts            # with each statement's time per request (pg_stat_statements)
 *   BENCH_PROFILE=<dir> tsx bench/cpu.ts     # with the service's --cpu-prof
 */
import { randomUUID } from "node:crypto"
import { chmod, mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { startEmbeddedPostgres } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { spawnRole } from "../test/support/processes.ts"
import { http } from "./load.ts"
import { freshDatabase, pixProcessBody } from "./setup.ts"

const N = Number(process.env.BENCH_N ?? 2_000)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8)
const TICK_MS = 10 // USER_HZ = 100 on Linux

const fields = async (pid: string) => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "")
  return { postgres: stat.includes("(postgres)"), f: stat.split(") ")[1]?.split(" ") ?? [] }
}
/** The service's CPU so far, in ms, and the kernel's share of it (stime: the socket writes' system calls). */
const serviceCpu = async (pid: number) => {
  const { f } = await fields(String(pid))
  return { total: (Number(f[11]) + Number(f[12])) * TICK_MS, kernel: Number(f[12]) * TICK_MS }
}
/** Every PostgreSQL process, with the children it reaped. */
const databaseMs = async () => {
  let total = 0
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    const { f, postgres } = await fields(pid)
    if (postgres) total += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS
  }
  return total
}

const main = async () => {
  // The service runs on this Node (spawnRole: process.execPath); lines differ (docs/performance.md).
  console.log(`Node ${process.version}`)
  const dir = await mkdtemp(join(tmpdir(), "gateway-cpu-"))
  await chmod(dir, 0o755)
  let scope = Effect.runSync(Scope.make())
  let service: Awaited<ReturnType<typeof spawnRole>> | undefined
  try {
    let server = await Effect.runPromise(Scope.extend(startEmbeddedPostgres(dir, "cpu"), scope))
    if (process.env.BENCH_PGSS === "1") {
      const admin = new pg.Client({ connectionString: server })
      await admin.connect()
      await admin.query("alter system set shared_preload_libraries = 'pg_stat_statements'")
      await admin.query("alter system set pg_stat_statements.track = 'all'")
      await admin.end()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      scope = Effect.runSync(Scope.make())
      server = await Effect.runPromise(Scope.extend(startEmbeddedPostgres(dir, "cpu"), scope))
    }
    const databaseUrl = await freshDatabase(server, "cpu")
    service = await spawnRole(
      "all",
      { DATABASE_URL: databaseUrl, LOG_LEVEL: "info" },
      {
        nodeArgs: process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []
      }
    )
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    if (process.env.BENCH_PGSS === "1") await db.query("create extension if not exists pg_stat_statements")
    const client = http(service.baseUrl, CLIENTS)
    const json = { "content-type": "application/json" }
    const post = async (path: string, headers: Record<string, string>, body: unknown) =>
      JSON.parse((await client.request("POST", path, { ...json, ...headers }, JSON.stringify(body))).text)
    const signup = await post(
      "/api/auth/signup",
      {},
      { name: "Cpu", email: `cpu-${randomUUID()}@example.com`, password: "benchmark password" }
    )
    const key: string = signup.apiKey.fullKey
    await db.query("update api_keys set rate_limit = 100000000 where account_id = $1", [signup.account.id])
    const customer = await post(
      "/api/customers",
      { "x-api-key": key },
      { name: "Buyer", email: "b@example.com", document: "52998224725", phone: "11912345678" }
    )
    const { rows: orders } = await db.query<{ id: string }>(
      `insert into orders (id, account_id, customer_id, amount, status)
       select gen_random_uuid(), $1, $2, 1000, 'PENDING' from generate_series(1, 2000) returning id`,
      [signup.account.id, customer.id]
    )
    for (let parked = 0; parked < 100_000; parked += 10_000) {
      await db.query(
        `select graphile_worker.add_jobs(array(
           select row('cleanup', '{}'::json, null, now() + interval '30 days', 1, null, 0, null)
                    ::graphile_worker.job_spec
           from generate_series(1, 10000)))`
      )
    }
    const { rows: tables } = await db.query<{ name: string }>(
      `select format('%I.%I', schemaname, relname) as name from pg_stat_user_tables
       where schemaname in ('public', 'graphile_worker')`
    )
    for (const { name } of tables) await db.query(`alter table ${name} set (autovacuum_enabled = false)`)
    // One charge to read back (`transaction GET`), made before any scenario runs.
    const charged = await post(
      "/api/payment-gateway/process",
      { "x-api-key": key, "idempotency-key": randomUUID() },
      pixProcessBody(orders.pop()!.id, 1000)
    )
    const v1Body = JSON.stringify({
      method: "pix",
      amount: 1000,
      customer: { name: "Maria Silva", email: "maria@example.com", document: "52998224725" }
    })
    const scenarios: Record<string, (i: number) => Promise<unknown>> = {
      "/api PIX": (i) =>
        client.request(
          "POST",
          "/api/payment-gateway/process",
          { ...json, "x-api-key": key, "idempotency-key": randomUUID() },
          JSON.stringify(pixProcessBody(orders[i % orders.length]!.id, 1000))
        ),
      "v1 PIX": () =>
        client.request(
          "POST",
          "/public/v1/transactions",
          { ...json, authorization: `Bearer ${key}`, "idempotency-key": randomUUID() },
          v1Body
        ),
      "auth GET": () => client.request("GET", `/api/customers/${customer.id}`, { "x-api-key": key }),
      "transaction GET": () =>
        client.request("GET", `/api/transactions/${charged.transactionId}`, { "x-api-key": key }),
      "/health": () => client.request("GET", "/health", {})
    }
    const only = process.env.BENCH_ONLY?.split(",")
    for (const [name, once] of Object.entries(scenarios)) {
      if (only !== undefined && !only.includes(name)) continue
      const loop = async (n: number) => {
        let i = 0
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            while (i < n) await once(i++)
          })
        )
      }
      await loop(Math.min(500, N / 4))
      await db.query("vacuum analyze")
      await db.query("checkpoint")
      if (process.env.BENCH_PGSS === "1") await db.query("select pg_stat_statements_reset()")
      const pid = service.child.pid!
      const [c0, d0, t0] = [await serviceCpu(pid), await databaseMs(), performance.now()]
      await loop(N)
      const [c1, d1, t1] = [await serviceCpu(pid), await databaseMs(), performance.now()]
      console.log(
        `${name.padEnd(10)} ${N} requests, ${CLIENTS} clients: service ${((c1.total - c0.total) / N).toFixed(3)} ms ` +
          `(kernel ${((c1.kernel - c0.kernel) / N).toFixed(3)}), ` +
          `database ${((d1 - d0) / N).toFixed(3)} ms of CPU per request; ${(N / ((t1 - t0) / 1000)).toFixed(0)}/s`
      )
      if (process.env.BENCH_PGSS === "1") {
        const { rows } = await db.query<{ calls: string; perRequest: string; blocks: string; query: string }>(
          `select calls, round((total_exec_time / $1)::numeric, 3) as "perRequest",
                  round(shared_blks_hit::numeric / calls, 1) as blocks,
                  left(regexp_replace(query, '\\s+', ' ', 'g'), 140) as query
           from pg_stat_statements
           where dbid = (select oid from pg_database where datname = current_database()) and calls >= $1 / 10
           order by total_exec_time desc limit 20`,
          [N]
        )
        for (const r of rows) {
          const figures = `${r.calls.padStart(6)} ${r.perRequest.padStart(7)} ms/request`
          console.log(`  ${figures} ${r.blocks.padStart(6)} blocks/call  ${r.query}`)
        }
      }
    }
    await client.close()
    await db.end()
  } finally {
    await service?.stop("SIGTERM")
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await rm(dir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
