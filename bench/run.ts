/**
 * npm run bench: throughput of the main request paths on this machine, each reported as a ratio to
 * a baseline (GET /health) measured in the same run, so that figures compare across machines.
 * Runs the real service in-process on an embedded PostgreSQL (or DATABASE_URL), with a parked
 * backlog of future jobs so the queue's plans are those of a used system. `BENCH_OTEL=1` measures the
 * same with OpenTelemetry tracing on.
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime, Option, Redacted, Scope } from "effect"
import pg from "pg"
import { startEmbeddedPostgres } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { AppConfigFrom } from "../src/config/AppConfig.ts"
import { roleLayer } from "../src/Roles.ts"
import { testConfig } from "../test/support/config.ts"

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 20000)

const json = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, init)
  const text = await response.text()
  if (response.status >= 400) throw new Error(`${init.method ?? "GET"} ${url} → ${response.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}

/** Runs `make(i)` REQUESTS times with CONCURRENCY in flight; returns requests per second. */
const measure = async (make: (i: number) => Promise<unknown>) => {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) await make(next++)
    })
  )
  return REQUESTS / ((performance.now() - started) / 1000)
}

/**
 * BENCH_OTEL=1 runs the same service with tracing on, exporting to a local OTLP receiver that accepts
 * and drops everything, to show what tracing costs against the default (off).
 */
const startCollector = async () => {
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  return server
}

const main = async () => {
  const collector = process.env.BENCH_OTEL === "1" ? await startCollector() : undefined
  console.log(`tracing: ${collector ? "on (OTLP to a local receiver)" : "off"}`)
  const dir = await mkdtemp(join(tmpdir(), "gateway-bench-"))
  await chmod(dir, 0o755)
  const scope = Effect.runSync(Scope.make())
  const databaseUrl =
    process.env.DATABASE_URL ?? (await Effect.runPromise(Scope.extend(startEmbeddedPostgres(dir, "bench"), scope)))
  const config = await testConfig(databaseUrl, {
    rateLimitPerMinute: 10_000_000,
    logLevel: "warning",
    databaseUrl: Option.some(Redacted.make(databaseUrl))
  })
  const runtime = ManagedRuntime.make(
    roleLayer("api").pipe(Layer.provide(AppConfigFrom(config)), Layer.provide(Logger.minimumLogLevel(LogLevel.Warning)))
  )
  await runtime.runPromise(Effect.void)
  const base = `http://127.0.0.1:${config.port}`
  try {
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    await db.query(
      `select graphile_worker.add_job('cleanup', '{}'::json, run_at := now() + interval '30 days') from
        generate_series(1, $1)`,
      [BACKLOG]
    )
    await db.end()

    const signup = await json(`${base}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "Bench",
        email: `bench-${randomUUID()}@example.com`,
        password: "benchmark password"
      })
    })
    const headers = { "content-type": "application/json", "x-api-key": signup.apiKey.fullKey as string }
    const customer = await json(`${base}/api/customers`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Buyer", email: "b@example.com", document: "52998224725", phone: "11912345678" })
    })
    const newOrder = () =>
      json(`${base}/api/orders`, {
        method: "POST",
        headers,
        body: JSON.stringify({ customerId: customer.id, amount: 1000 })
      })
    const address = {
      postal_code: "01310100",
      street: "Av Paulista",
      number: "1",
      neighborhood: "Bela Vista",
      city: "São Paulo",
      state: "SP"
    }
    const pay = async (method: "PIX" | "CARD") => {
      const order = await newOrder()
      const card =
        method === "CARD"
          ? {
              cardHolderName: "BENCH",
              cardNumber: "4242424242424242",
              cardExpirationMonth: "12",
              cardExpirationYear: "35",
              cardSecurityCode: "123",
              cardBrand: "Visa",
              buyerBirthdate: "1990-01-01"
            }
          : {}
      return json(`${base}/api/payment-gateway/process`, {
        method: "POST",
        headers: { ...headers, "idempotency-key": randomUUID() },
        body: JSON.stringify({
          orderId: order.id,
          method,
          amount: 1000,
          buyerDoc: "52998224725",
          buyerCellNumber: "11912345678",
          buyerAddress: address,
          ...card
        })
      })
    }

    await measure(() => json(`${base}/health`)) // warm-up
    const results: Array<[string, number]> = []
    const baseline = await measure(() => json(`${base}/health`))
    results.push(["GET /health (baseline)", baseline])
    results.push([
      "GET /api/customers/{id} (key + rate limit)",
      await measure(() => json(`${base}/api/customers/${customer.id}`, { headers }))
    ])
    results.push(["POST /api/orders", await measure(() => newOrder())])
    results.push(["order + PIX charge (idempotent)", await measure(() => pay("PIX"))])
    results.push(["order + CARD charge (idempotent)", await measure(() => pay("CARD"))])

    console.log(`\n${REQUESTS} requests per scenario, ${CONCURRENCY} in flight, ${BACKLOG} parked jobs\n`)
    console.log("scenario".padEnd(46) + "req/s".padStart(10) + "  ratio to baseline")
    for (const [name, rate] of results)
      console.log(name.padEnd(46) + rate.toFixed(0).padStart(10) + `  ${(rate / baseline).toFixed(3)}`)
  } finally {
    await runtime.dispose()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await rm(dir, { recursive: true, force: true })
    collector?.close()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
