/**
 * `npm run bench:dashboard` (docs/performance.md "Dashboard"): the web dashboard's budgets, measured.
 *
 * 1. First load: the gzipped JavaScript that /dashboard makes a browser fetch (budget 250 KB).
 * 2. The transactions page of the dashboard API for an account of BENCH_DASHBOARD_ROWS (default
 *    1,000,000) transactions, seeded by SQL: the page at several depths (the cursor of the row at that
 *    depth, as a client paging there would hold), unfiltered and filtered, 20 requests each (budget
 *    < 200 ms at any depth), and PostgreSQL's plan of the deepest page.
 *
 * The service runs as its own process (`src/main.ts api`) over an embedded PostgreSQL in a temp dir.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { startEmbeddedPostgres } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { decodeKeysetCursor, encodeKeysetCursor } from "../src/http/shared/keysetCursor.ts"
import { startBenchApi } from "./setup.ts"
import { seedTransactions } from "./lists.ts"

const percentile = (values: Array<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "gateway-bench-dashboard-"))
  await chmod(dir, 0o755)
  const scope = Effect.runSync(Scope.make())
  const databaseUrl = await Effect.runPromise(Scope.extend(startEmbeddedPostgres(join(dir, "pg"), "bench"), scope))
  const { service, baseUrl } = await startBenchApi(databaseUrl, dir)
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  try {
    // 1. First load.
    const html = await (await fetch(`${baseUrl}/dashboard`)).text()
    const scripts = [...html.matchAll(/src="(\/dashboard\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!)
    let jsGzip = 0
    let jsRaw = 0
    for (const src of scripts) {
      const body = new Uint8Array(await (await fetch(`${baseUrl}${src}`)).arrayBuffer())
      jsRaw += body.length
      jsGzip += gzipSync(body, { level: 9 }).length
    }
    console.log(JSON.stringify({ firstLoad: { scripts, jsRawBytes: jsRaw, jsGzipBytes: jsGzip, budget: 250 * 1024 } }))

    // 2. The transactions page at depth.
    const email = `dashboard-${Date.now()}@example.com`
    const password = "correct horse battery"
    const signup = (await fetch(`${baseUrl}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench Dashboard", email, password })
    }).then((r) => r.json())) as { account: { id: string } }
    const accountId = signup.account.id
    const rows = Number(process.env.BENCH_DASHBOARD_ROWS ?? 1_000_000)
    const seeding = performance.now()
    await seedTransactions(db, accountId, rows)
    console.log(JSON.stringify({ seeded: rows, seedMs: Math.round(performance.now() - seeding) }))
    const token = (
      (await fetch(`${baseUrl}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password })
      }).then((r) => r.json())) as { accessToken: string }
    ).accessToken

    const cursorAt = async (depth: number) => {
      if (depth === 0) return undefined
      const found = await db.query<{ at: string; id: string }>(
        `select created_at::text as at, id::text from transactions where account_id = $1
         order by created_at desc, id desc offset $2 limit 1`,
        [accountId, depth - 1]
      )
      const row = found.rows[0]!
      return encodeKeysetCursor("transactions", row)
    }
    const depths = [0, 1_000, 100_000, 500_000, Math.max(0, rows - 50)].filter((d) => d < rows)
    const queries: Record<string, string> = {
      unfiltered: "limit=50",
      "status+method": "limit=50&status=PENDING,PAID&method=PIX",
      "amount range": "limit=50&amount_min=1000&amount_max=5999"
    }
    const results: Array<Record<string, unknown>> = []
    for (const [name, q] of Object.entries(queries)) {
      for (const depth of depths) {
        const cursor = await cursorAt(depth)
        const url = `${baseUrl}/api/dashboard/transactions?${q}${cursor ? `&cursor=${cursor}` : ""}`
        const times: Array<number> = []
        let count = 0
        for (let i = 0; i < 20; i++) {
          const started = performance.now()
          const reply = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
          const body = (await reply.json()) as { data: Array<unknown> }
          times.push(performance.now() - started)
          if (reply.status !== 200) throw new Error(`${reply.status} ${JSON.stringify(body)}`)
          count = body.data.length
        }
        results.push({
          query: name,
          depth,
          rows: count,
          p50Ms: Math.round(percentile(times, 50) * 10) / 10,
          p95Ms: Math.round(percentile(times, 95) * 10) / 10,
          maxMs: Math.round(Math.max(...times) * 10) / 10
        })
        console.log(JSON.stringify(results[results.length - 1]))
      }
    }
    const deepest = await cursorAt(depths[depths.length - 1]!)
    const { at, id } = (deepest === undefined ? undefined : decodeKeysetCursor("transactions", deepest)) ?? {
      at: "",
      id: ""
    }
    const plan = await db.query(
      `explain (analyze, buffers, costs off)
       select t.id from transactions t left join customers c on c.id = t.customer_id and c.account_id = t.account_id
       where t.account_id = $1 and (t.created_at, t.id) < ($2::timestamptz, $3::uuid)
       order by t.created_at desc, t.id desc limit 50`,
      [accountId, at, id]
    )
    console.log("plan of the deepest unfiltered page:")
    for (const row of plan.rows) console.log(`  ${row["QUERY PLAN"]}`)
    const worst = Math.max(...results.map((r) => r["p95Ms"] as number))
    console.log(JSON.stringify({ transactionsPageWorstP95Ms: worst, budgetMs: 200, jsGzipBytes: jsGzip }))
  } finally {
    await db.end()
    service.kill("SIGTERM")
    await new Promise((resolve) => service.once("exit", resolve))
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await rm(dir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
