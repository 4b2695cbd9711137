/**
 * `npm run bench:scale`: throughput of one versus two API processes on one PostgreSQL, for
 * docs/scaling.md. Authenticated GET /api/customers/{id} (key lookup + rate-limit slot) and PIX charges
 * (fresh order each), 16 requests in flight for DURATION seconds, round-robin over the processes.
 */
import { randomBytes } from "node:crypto"
import { chmod, mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { startEmbeddedPostgres } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { spawnRole, stopAll, type RoleProcess } from "../test/support/processes.ts"

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const DURATION_MS = Number(process.env.DURATION ?? 8) * 1000
const IN_FLIGHT = 16
const doc = () => {
  const d = Array.from({ length: 9 }, () => Math.floor(Math.random() * 10))
  const dv = (n: number) => {
    const s = d.slice(0, n).reduce((a, x, i) => a + x * (n + 1 - i), 0) % 11
    return s < 2 ? 0 : 11 - s
  }
  d.push(dv(9))
  d.push(dv(10))
  return d.join("")
}

const load = async (bases: ReadonlyArray<string>, request: (base: string) => Promise<number>) => {
  let done = 0
  let errors = 0
  let turn = 0
  const until = Date.now() + DURATION_MS
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (Date.now() < until) {
        const status = await request(bases[turn++ % bases.length]!)
        if (status >= 200 && status < 300) done++
        else errors++
      }
    })
  )
  return { perSecond: Math.round(done / (DURATION_MS / 1000)), errors }
}

const dir = await mkdtemp(join(tmpdir(), "gateway-scale-"))
await chmod(dir, 0o755)
const scope = Effect.runSync(Scope.make())
const url = await Effect.runPromise(Scope.extend(startEmbeddedPostgres(dir, "postgres"), scope))
const env = {
  DATABASE_URL: url,
  JWT_SECRET: randomBytes(32).toString("base64url"),
  CARD_VAULT_KEY: randomBytes(32).toString("base64"),
  RATE_LIMIT_PER_MINUTE: "10000000",
  LOG_LEVEL: "warning"
}
const apis: Array<RoleProcess> = [await spawnRole("api", env)]
apis.push(await spawnRole("api", env))
const post = (base: string, path: string, body: unknown, key: string) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify(body)
  })
const signup = (await (
  await post(
    apis[0]!.baseUrl,
    "/api/auth/signup",
    {
      name: "Scale",
      email: `scale-${Date.now()}@example.com`,
      password: "correct horse battery"
    },
    ""
  )
).json()) as Json
const key = signup.apiKey.fullKey as string
const customer = (await (
  await post(
    apis[0]!.baseUrl,
    "/api/customers",
    {
      name: "Ana",
      email: "ana@example.com",
      document: doc(),
      phone: "(11) 91234-5678"
    },
    key
  )
).json()) as Json
const get = (base: string) =>
  fetch(`${base}/api/customers/${customer.id}`, { headers: { "x-api-key": key } }).then((r) => r.status)
const charge = async (base: string) => {
  const order = (await (
    await post(base, "/api/orders", { customerId: customer.id, amount: 1_000 }, key)
  ).json()) as Json
  const address = { postal_code: "01310100", street: "Av", number: "1", neighborhood: "B", city: "SP", state: "SP" }
  const body = {
    orderId: order.id,
    method: "PIX",
    amount: 1_000,
    buyerDoc: customer.document,
    buyerCellNumber: "(11) 91234-5678",
    buyerAddress: address
  }
  return (await post(base, "/api/payment-gateway/process", body, key)).status
}
const one = [apis[0]!.baseUrl]
const two = apis.map((a) => a.baseUrl)
const results = {
  getOne: await load(one, get),
  getTwo: await load(two, get),
  chargeOne: await load(one, charge),
  chargeTwo: await load(two, charge)
}
console.log(JSON.stringify(results))
const ratio = (a: { perSecond: number }, b: { perSecond: number }) => (b.perSecond / a.perSecond).toFixed(2)
console.log(
  `GET: 1 API ${results.getOne.perSecond}/s, 2 APIs ${results.getTwo.perSecond}/s ` +
    `(×${ratio(results.getOne, results.getTwo)}); order+PIX: 1 API ${results.chargeOne.perSecond}/s, ` +
    `2 APIs ${results.chargeTwo.perSecond}/s (×${ratio(results.chargeOne, results.chargeTwo)})`
)
await stopAll(apis)
await Effect.runPromise(Scope.close(scope, Exit.void))
process.exit(0)
