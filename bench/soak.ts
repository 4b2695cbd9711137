/**
 * npm run bench:soak (issue 10): SOAK_MINUTES (10) of mixed load on the real service (a separate
 * process, API and worker, default logging) at half its capacity for that mix: PIX and card charges,
 * refunds, reads, and the webhook deliveries they cause to a local receiver. The capacity is measured
 * first, in the same run (SOAK_PROBE_SECONDS, 30, of the same mix in a closed loop of 32 clients); SOAK_RATE
 * sets the rate instead. The mix costs more than the charges alone `npm run bench` measures (cards,
 * refunds, a v1 page with its count, every delivery in the same process), so half of that figure
 * would be more than half of this one. Every 10 s it samples the service's RSS (from /proc) and
 * the window's p99; at the end it reports the RSS trend (least-squares slope over the second half,
 * after warm-up), the errors and the p99 of each minute, and writes bench/results/soak-*.json.
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { startEmbeddedPostgres } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { luhnCheckDigit } from "../src/domain/card.ts"
import { cpfCheckDigits } from "../src/domain/document.ts"
import { spawnRole } from "../test/support/processes.ts"
import { http, percentile } from "./load.ts"
import { freshDatabase, pixProcessBody } from "./setup.ts"

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10)
const FIXED_RATE = process.env.SOAK_RATE === undefined ? undefined : Number(process.env.SOAK_RATE)
const PROBE_SECONDS = Number(process.env.SOAK_PROBE_SECONDS ?? 30)

const rssMb = async (pid: number) => {
  const status = await readFile(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

const slope = (points: ReadonlyArray<readonly [number, number]>) => {
  const n = points.length
  const mx = points.reduce((s, [x]) => s + x, 0) / n
  const my = points.reduce((s, [, y]) => s + y, 0) / n
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0)
  return den === 0 ? 0 : num / den
}

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "gateway-soak-"))
  await chmod(dir, 0o755)
  const scope = Effect.runSync(Scope.make())
  const server =
    process.env.DATABASE_URL ?? (await Effect.runPromise(Scope.extend(startEmbeddedPostgres(dir, "soak"), scope)))
  const databaseUrl = await freshDatabase(server, "soak")
  let delivered = 0
  const receiver = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      delivered += 1
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const service = await spawnRole("all", { DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE_URLS: "true" })
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  const client = http(service.baseUrl, 32)
  try {
    const json = async (method: "GET" | "POST", path: string, body?: unknown, headers: Record<string, string> = {}) =>
      JSON.parse(
        (
          await client.request(
            method,
            path,
            { "content-type": "application/json", ...headers },
            body === undefined ? undefined : JSON.stringify(body)
          )
        ).text
      )
    const signup = await json("POST", "/api/auth/signup", {
      name: "Soak",
      email: `soak-${randomUUID()}@example.com`,
      password: "soak password 1"
    })
    const key: string = signup.apiKey.fullKey
    await db.query("update api_keys set rate_limit = 100000000 where account_id = $1", [signup.account.id])
    const auth = { "x-api-key": key }
    await json(
      "POST",
      "/api/webhooks/upsert",
      { url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook` },
      auth
    )
    const customer = await json(
      "POST",
      "/api/customers",
      { name: "Buyer", email: "b@example.com", document: "52998224725", phone: "11912345678" },
      auth
    )
    const paid: Array<string> = []
    // What the mix did, so that a run shows its refunds happened and how its card sales ended.
    const cardOutcomes: Record<string, number> = {}
    let refunds = 0
    const buyer = { name: "Maria Silva", email: "maria@example.com", document: "52998224725" }
    // Each card sale by another buyer with another card: the same pair every time would trip the
    // antifraud's velocity rules, and the refused sales would leave nothing to refund.
    const freshCpf = () => {
      const first9 = String(Math.floor(Math.random() * 1e9)).padStart(9, "0")
      return /^(\d)\1{8}$/.test(first9) ? "52998224725" : `${first9}${cpfCheckDigits(first9)}`
    }
    const cardSale = () => {
      const partial = `4${String(Math.floor(Math.random() * 1e14)).padStart(14, "0")}`
      return {
        customer: { ...buyer, document: freshCpf() },
        card: {
          number: `${partial}${luhnCheckDigit(partial)}`,
          holder_name: "MARIA SILVA",
          exp_month: "12",
          exp_year: "2035",
          cvv: "123"
        }
      }
    }
    const bearer = { authorization: `Bearer ${key}` }
    // The mix: 40 % PIX charges (v2 with an order, or v1), 20 % card charges, 10 % refunds, 30 % reads.
    const operations: ReadonlyArray<readonly [string, () => Promise<unknown>]> = [
      [
        "/api PIX charge",
        async () => {
          const order = await json("POST", "/api/orders", { customerId: customer.id, amount: 1_000 }, auth)
          return json("POST", "/api/payment-gateway/process", pixProcessBody(order.id, 1_000), {
            ...auth,
            "idempotency-key": randomUUID()
          })
        }
      ],
      [
        "v1 PIX charge",
        () => json("POST", "/public/v1/transactions", { method: "pix", amount: 1_500, customer: buyer }, bearer)
      ],
      [
        "v1 card charge",
        async () => {
          const t = await json(
            "POST",
            "/public/v1/transactions",
            { method: "credit_card", amount: 2_000, installments: 1, ...cardSale() },
            bearer
          )
          cardOutcomes[t.data.status] = (cardOutcomes[t.data.status] ?? 0) + 1
          if (t.data.status === "paid") paid.push(t.data.hash)
        }
      ],
      [
        "v1 refund",
        async () => {
          const hash = paid.shift()
          if (hash === undefined) return
          await json("POST", `/public/v1/transactions/${hash}/refund`, { amount: 500 }, bearer)
          refunds += 1
        }
      ],
      ["v1 balance", () => json("GET", "/public/v1/balance", undefined, bearer)],
      ["/api customer", () => json("GET", `/api/customers/${customer.id}`, undefined, auth)],
      ["v1 transactions page", () => json("GET", "/public/v1/transactions?per_page=20", undefined, bearer)]
    ]
    const weights = [2, 2, 2, 1, 1, 1, 1]
    const pick = (i: number) => {
      let n = i % weights.reduce((s, w) => s + w, 0)
      for (const [k, w] of weights.entries()) {
        if (n < w) return operations[k]!
        n -= w
      }
      return operations[0]!
    }

    // The mix's capacity: operations per second of 32 clients each starting the next when one ends.
    let capacity: number | undefined
    if (FIXED_RATE === undefined) {
      let done = 0
      let failed = 0
      let next = 0
      const until = performance.now() + PROBE_SECONDS * 1000
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (performance.now() < until) {
            // A failed operation is not capacity: it is counted apart and reported.
            await pick(next++)[1]().then(
              () => void (done += 1),
              () => void (failed += 1)
            )
          }
        })
      )
      if (failed > 0) console.log(`capacity probe: ${failed} operations failed`)
      capacity = done / PROBE_SECONDS
      // Let the deliveries the probe caused drain before the soak starts.
      for (let idle = 0, waited = 0; idle < 3 && waited < 60; waited++) {
        const before = delivered
        await new Promise((resolve) => setTimeout(resolve, 1_000))
        idle = delivered === before ? idle + 1 : 0
      }
      console.log(`capacity of the mix: ${capacity.toFixed(0)} operations/s; soaking at half`)
    }
    const RATE = FIXED_RATE ?? Math.max(1, Math.floor(capacity! / 2))

    const started = performance.now()
    const end = started + MINUTES * 60_000
    let errors = 0
    let sent = 0
    let window: Array<number> = []
    // Each operation's latencies by minute, to tell which one moves when the p99 does.
    const byOperation = new Map(operations.map(([name]) => [name, [] as Array<Array<number>>]))
    const samples: Array<{ atS: number; rssMb: number; p99Ms: number; requests: number; delivered: number }> = []
    const inFlight = new Set<Promise<void>>()
    const sampler = setInterval(() => {
      void rssMb(service.child.pid!).then((rss) => {
        window.sort((a, b) => a - b)
        samples.push({
          atS: Math.round((performance.now() - started) / 1000),
          rssMb: rss,
          p99Ms: percentile(window, 99),
          requests: window.length,
          delivered
        })
        const last = samples.at(-1)!
        console.log(
          `${last.atS}s rss ${rss.toFixed(0)} MB p99 ${last.p99Ms.toFixed(1)} ms ${last.requests} req, ` +
            `${delivered} deliveries, ${errors} errors`
        )
        window = []
      })
    }, 10_000)
    // Open loop at RATE requests per second: the arrival rate does not slow down when the service does.
    while (performance.now() < end) {
      const due = started + (sent * 1000) / RATE
      const wait = due - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      const [name, op] = pick(sent++)
      const t0 = performance.now()
      const minute = Math.floor((t0 - started) / 60_000)
      const p: Promise<void> = op()
        .then(() => {
          const ms = performance.now() - t0
          window.push(ms)
          ;(byOperation.get(name)![minute] ??= []).push(ms)
        })
        .catch(() => void (errors += 1))
        .finally(() => inFlight.delete(p))
      inFlight.add(p)
    }
    await Promise.all(inFlight)
    clearInterval(sampler)
    const second = samples.filter((s) => s.atS >= (MINUTES * 60) / 2).map((s) => [s.atS / 60, s.rssMb] as const)
    const report = {
      at: new Date().toISOString(),
      minutes: MINUTES,
      capacity,
      rate: RATE,
      sent,
      errors,
      delivered,
      refunds,
      cardOutcomes,
      rssSlopeMbPerMinute: slope(second),
      rssFirstMb: samples[0]?.rssMb,
      rssLastMb: samples.at(-1)?.rssMb,
      p99ByMinute: Array.from({ length: MINUTES }, (_, m) =>
        Math.max(0, ...samples.filter((s) => s.atS > m * 60 && s.atS <= (m + 1) * 60).map((s) => s.p99Ms))
      ),
      p99ByOperationByMinute: Object.fromEntries(
        [...byOperation].map(([name, minutes]) => [
          name,
          Array.from({ length: MINUTES }, (_, m) =>
            Number(
              percentile(
                (minutes[m] ?? []).sort((a, b) => a - b),
                99
              ).toFixed(1)
            )
          )
        ])
      ),
      samples
    }
    console.log(JSON.stringify({ ...report, samples: undefined }, null, 2))
    await mkdir("bench/results", { recursive: true })
    const file = `bench/results/soak-${new Date().toISOString().slice(0, 19).replaceAll(":", "")}.json`
    await writeFile(file, JSON.stringify(report, null, 2))
    console.log(`wrote ${file}`)
  } finally {
    await client.close()
    await db.end()
    await service.stop("SIGTERM")
    receiver.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await rm(dir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
