/**
 * Webhook delivery throughput and latency (issue 10 item 4), against `databaseUrl` (migrated here).
 *
 * 1. Burst: an account whose webhook points at a local receiver answering 200 at once gets BURST events
 *    (default 20,000) written with the SQL of `OutboxLive.emit` (event + delivery + `add_job` per event), in
 *    transactions of 1,000, before any worker runs. Then ONE worker process (`src/main.ts worker`) starts;
 *    deliveries per second are counted from the first to the last 200 the receiver sends, and the database
 *    must then show every delivery SUCCESS after exactly one attempt, each received exactly once.
 * 2. Idle latency: with the worker idle, IDLE_EVENTS single events, spaced out, each timed from just before
 *    its transaction commits to its arrival at the receiver (the LISTEN/NOTIFY path, no poll wait).
 *
 * The worker's environment is `workerEnv` over the service's defaults, with WORKER_CONCURRENCY=128 (the
 * documented setting, docs/operations.md) unless `workerEnv` says otherwise. Signatures are checked on a
 * sample with `standardwebhooks`. It also prints the CPU the worker and PostgreSQL spent per delivery (from
 * /proc), the figure that holds on a shared machine where the rate does not.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { NodeContext } from "@effect/platform-node"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import { generateWebhookSecret } from "../src/adapters/crypto/webhook-signature.ts"
import { DatabaseLive } from "../src/Roles.ts"
import { AppConfigFrom } from "../src/config/AppConfig.ts"
import { testConfig } from "../test/support/config.ts"
import { spawnRole } from "../test/support/processes.ts"

export interface WebhookBenchResult {
  readonly events: number
  readonly deliveriesPerSecond: number
  readonly idleP99Ms: number
  readonly idleP50Ms: number
}

const BURST = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20_000)
const IDLE_EVENTS = Number(process.env.BENCH_WEBHOOK_IDLE_EVENTS ?? 100)
const IDLE_SPACING_MS = 60
/** The worker's WORKER_CONCURRENCY unless `workerEnv` sets it: docs/operations.md, webhook throughput. */
const BENCH_CONCURRENCY = 128
const CHUNK = 1_000
const SAMPLE_SIGNATURES = 200

interface Receiver {
  readonly url: string
  /** webhook-id → arrival times (Date.now(), performance.now()) of each request. */
  readonly arrivals: Map<string, Array<number>>
  readonly signed: Array<{ headers: Record<string, string>; body: string }>
  total: number
  first: number
  last: number
  readonly waiters: Map<string, (at: number) => void>
  readonly server: Server
}

/** Answers 200 as soon as the body is in; remembers when each webhook-id arrived. */
const startReceiver = async (): Promise<Receiver> => {
  const receiver: Omit<Receiver, "url" | "server"> = {
    arrivals: new Map(),
    signed: [],
    total: 0,
    first: 0,
    last: 0,
    waiters: new Map()
  }
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const at = performance.now()
      res.writeHead(200, { "content-type": "text/plain" }).end("ok")
      const id = String(req.headers["webhook-id"])
      const seen = receiver.arrivals.get(id)
      if (seen) seen.push(at)
      else receiver.arrivals.set(id, [at])
      if (receiver.total === 0) receiver.first = at
      receiver.total++
      receiver.last = at
      if (receiver.signed.length < SAMPLE_SIGNATURES)
        receiver.signed.push({
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
          body: Buffer.concat(chunks).toString("utf8")
        })
      receiver.waiters.get(id)?.(at)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return Object.assign(receiver, { url: `http://127.0.0.1:${port}/hook`, server })
}

/** The rows `OutboxLive.emit` writes for one PIX transaction.created, for `count` events in one statement. */
const EMIT_MANY = `
  with spec as (
    select gen_random_uuid() as event_id, gen_random_uuid() as delivery_id, gen_random_uuid() as tx_id, n
    from generate_series(1, $2::int) as n
  ), event as (
    insert into events (id, account_id, type, kind, origin, transaction_id, snapshot)
    select event_id, $1::uuid, 'transaction.created', 'created', 'v2', null,
           jsonb_build_object('id', tx_id, 'orderId', null, 'method', 'PIX', 'amount', 1000 + n,
                              'amountTotal', 1000 + n, 'status', 'PENDING', 'paidAt', null, 'refundedAmount', 0,
                              'declineCode', null, 'metadata', jsonb_build_object('n', n))
    from spec
  ), delivery as (
    insert into webhook_deliveries (id, account_id, event_id, event, url, status)
    select spec.delivery_id, w.account_id, spec.event_id, 'transaction.created', w.url, 'PENDING'
    from spec, webhooks w where w.account_id = $1::uuid
    returning id
  )
  select graphile_worker.add_job('deliver_webhook',
                                 json_build_object('deliveryId', delivery.id, 'traceparent', null::text),
                                 job_key := delivery.id::text, max_attempts := 25)::text as id,
         delivery.id::text as delivery_id
  from delivery`

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/**
 * CPU seconds used so far by a process (and, with `children`, by its live children and the children it has
 * reaped: PostgreSQL's backends), from /proc; 0 where /proc is not there (then the figure is not printed).
 */
const cpuSeconds = (pid: number, children = false): number => {
  const ticks = (p: number, reaped: boolean) => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ")
      // fields[11..14] = utime stime cutime cstime (stat fields 14..17)
      return Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0)
    } catch {
      return 0
    }
  }
  let total = ticks(pid, children)
  if (children)
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const ppid = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1])
        if (ppid === pid) total += ticks(Number(entry), false)
      } catch {
        // gone meanwhile
      }
    }
  return total / 100 // USER_HZ
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits

export async function benchWebhooks(options: {
  databaseUrl: string
  workerEnv?: Record<string, string>
}): Promise<WebhookBenchResult> {
  const { databaseUrl } = options
  // Migrations first, so the burst can be written before any worker exists.
  const config = await testConfig(databaseUrl, { databaseUrl: Option.some(Redacted.make(databaseUrl)) })
  const migrated = ManagedRuntime.make(
    DatabaseLive.pipe(Layer.provide(AppConfigFrom(config)), Layer.provide(NodeContext.layer))
  )
  await migrated.runPromise(Effect.void)
  await migrated.dispose()

  const receiver = await startReceiver()
  const db = new pg.Pool({ connectionString: databaseUrl, max: 4 })
  db.on("error", () => {}) // a server shutting down while the pool idles is not the benchmark's business
  const accountId = randomUUID()
  const secret = generateWebhookSecret()
  await db.query("insert into accounts (id, name, email, password_hash) values ($1, 'bench', $2, 'x')", [
    accountId,
    `bench-${accountId}@example.com`
  ])
  await db.query("insert into webhooks (account_id, url, secret) values ($1, $2, $3)", [
    accountId,
    receiver.url,
    secret
  ])

  let worker: Awaited<ReturnType<typeof spawnRole>> | undefined
  try {
    const deliveryIds: Array<string> = []
    for (let written = 0; written < BURST; written += CHUNK) {
      const { rows } = await db.query<{ delivery_id: string }>(EMIT_MANY, [accountId, Math.min(CHUNK, BURST - written)])
      for (const row of rows) deliveryIds.push(row.delivery_id)
    }
    const concurrency = options.workerEnv?.WORKER_CONCURRENCY ?? String(BENCH_CONCURRENCY)
    console.log(
      `webhooks: ${deliveryIds.length} events queued; starting one worker (WORKER_CONCURRENCY=${concurrency})`
    )

    worker = await spawnRole("worker", {
      DATABASE_URL: databaseUrl,
      JWT_SECRET: randomBytes(32).toString("base64url"),
      CARD_VAULT_KEY: randomBytes(32).toString("base64"),
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      WORKER_CONCURRENCY: String(BENCH_CONCURRENCY),
      ...options.workerEnv
    })
    const postmaster = await db
      .query<{ pid: number }>("select pg_backend_pid() as pid")
      .then(({ rows }) => Number(readFileSync(`/proc/${rows[0]!.pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]))
      .catch(() => 0)
    let cpuAtFirst: readonly [number, number] | undefined
    const started = Date.now()
    const limitMs = Math.max(120_000, BURST * 10)
    while (receiver.arrivals.size < BURST) {
      if (worker.child.exitCode !== null) throw new Error(`worker exited\n${worker.output()}`)
      if (Date.now() - started > limitMs)
        throw new Error(`only ${receiver.arrivals.size}/${BURST} delivered within ${limitMs} ms\n${worker.output()}`)
      if (cpuAtFirst === undefined && receiver.total > 0)
        cpuAtFirst = [cpuSeconds(worker.child.pid!), cpuSeconds(postmaster, true)]
      await sleep(50)
    }
    const cpuAtLast = [cpuSeconds(worker.child.pid!), cpuSeconds(postmaster, true)] as const
    const burstSeconds = (receiver.last - receiver.first) / 1000
    const deliveriesPerSecond = round((BURST - 1) / burstSeconds)
    console.log(`webhooks: burst of ${BURST} in ${round(burstSeconds, 2)} s → ${deliveriesPerSecond} deliveries/s`)
    if (cpuAtFirst && cpuAtLast[0] > 0) {
      const perDelivery = (i: 0 | 1) => round(((cpuAtLast[i] - cpuAtFirst![i]) * 1000) / BURST, 2)
      // On a shared machine the rate depends on what else runs; CPU per delivery does not, much.
      console.log(
        `webhooks: CPU per delivery: worker ${perDelivery(0)} ms, PostgreSQL ${postmaster ? perDelivery(1) : "?"} ms`
      )
    }

    // Every delivery SUCCESS after one attempt, recorded once, each received exactly once.
    await until(async () => {
      const { rows } = await db.query<{ status: string; attempts: number; http_status: number | null; n: number }>(
        `select status, attempts, http_status, count(*)::int as n from webhook_deliveries
         where account_id = $1 group by 1, 2, 3`,
        [accountId]
      )
      return rows.length === 1 && rows[0]!.status === "SUCCESS" && rows[0]!.n === BURST ? rows : undefined
    }, "every burst delivery SUCCESS in the database")
    const { rows: log } = await db.query<{ status: string; attempts: number; http_status: number | null; n: number }>(
      `select status, attempts, http_status, count(*)::int as n from webhook_deliveries
       where account_id = $1 group by 1, 2, 3`,
      [accountId]
    )
    if (log.length !== 1 || log[0]!.attempts !== 1 || log[0]!.http_status !== 200)
      throw new Error(`unexpected delivery log: ${JSON.stringify(log)}`)
    const duplicates = [...receiver.arrivals.values()].filter((times) => times.length !== 1).length
    const queued = new Set(deliveryIds)
    const unknown = [...receiver.arrivals.keys()].filter((id) => !queued.has(id)).length
    if (duplicates > 0 || unknown > 0 || receiver.total !== BURST)
      throw new Error(`received ${receiver.total} requests: ${duplicates} duplicated, ${unknown} unknown`)
    const verifier = new Webhook(secret)
    for (const { headers, body } of receiver.signed) verifier.verify(body, headers)
    await until(async () => {
      const { rows } = await db.query<{ n: number }>(
        "select count(*)::int as n from graphile_worker._private_jobs where task_id = (select id from " +
          "graphile_worker._private_tasks where identifier = 'deliver_webhook')"
      )
      return rows[0]!.n === 0 ? true : undefined
    }, "the deliver_webhook jobs gone")

    // Idle: one event at a time, from just before its commit to its arrival.
    await sleep(1_000)
    const latencies: Array<number> = []
    for (let i = 0; i < IDLE_EVENTS; i++) {
      const client = await db.connect()
      try {
        await client.query("begin")
        const { rows } = await client.query<{ delivery_id: string }>(EMIT_MANY, [accountId, 1])
        const id = rows[0]!.delivery_id
        const arrived = new Promise<number>((resolve) => receiver.waiters.set(id, resolve))
        const before = performance.now()
        await client.query("commit")
        const at = await Promise.race([arrived, sleep(10_000).then(() => NaN)])
        receiver.waiters.delete(id)
        if (Number.isNaN(at)) throw new Error(`idle event ${i} not delivered within 10 s`)
        latencies.push(at - before)
      } finally {
        client.release()
      }
      await sleep(IDLE_SPACING_MS + Math.random() * IDLE_SPACING_MS)
    }
    latencies.sort((a, b) => a - b)
    const idleP50Ms = round(percentile(latencies, 50))
    const idleP99Ms = round(percentile(latencies, 99))
    console.log(`webhooks: idle event→delivery over ${IDLE_EVENTS} events: p50 ${idleP50Ms} ms, p99 ${idleP99Ms} ms`)
    return { events: BURST, deliveriesPerSecond, idleP99Ms, idleP50Ms }
  } finally {
    const code = await worker?.stop("SIGTERM")
    if (code !== undefined && code !== 0) console.warn(`webhooks: worker exited ${code}`)
    await db.end()
    const closed = new Promise<void>((resolve) => receiver.server.close(() => resolve()))
    receiver.server.closeAllConnections()
    await closed
  }
}

const until = async <A>(probe: () => Promise<A | undefined>, what: string, timeoutMs = 60_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}
