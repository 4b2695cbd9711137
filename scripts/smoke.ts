/**
 * The smoke run of issue 11 (`npm run smoke`; `.ci/run` runs it under Node 24 too): the service as a
 * user starts it, on its embedded PostgreSQL, then signup, a PIX charge, a sandbox payment and the
 * webhook it sends, received and verified. Exits 0 on success, 1 with the reason otherwise.
 */
import { spawn } from "node:child_process"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Webhook } from "standardwebhooks"
import { freePort } from "../test/support/config.ts"

// Not a random port in 30000–50000: that range overlaps Linux's ephemeral one (32768–60999), where the
// service's own connections to its embedded PostgreSQL take their local ports, so CI's stop 39 failed
// with "port 46398 is already in use". freePort picks below that range and checks the port is free.
const PORT = await freePort()
const BASE = `http://127.0.0.1:${PORT}`
/** The service under test, once started: a failure stops it too. */
const running: { child?: ReturnType<typeof spawn> } = {}
const fail = (why: string): never => {
  console.error(`smoke FAILED under Node ${process.version}: ${why}`)
  running.child?.kill("SIGTERM") // the service stops itself and its embedded PostgreSQL
  process.exit(1)
}
const call = async (method: string, path: string, body?: unknown, key?: string) => {
  const res = await fetch(`${BASE}${path}`, {
    method,
    // The key in both forms: /api reads X-Api-Key, /public/v1 the Bearer token.
    headers: {
      "content-type": "application/json",
      ...(key ? { "x-api-key": key, authorization: `Bearer ${key}` } : {})
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json = (await res.json().catch(() => undefined)) as any
  return { status: res.status, body: json }
}

const received: Array<{ headers: Record<string, string>; body: string }> = []
const receiver = createServer((req, res) => {
  let body = ""
  req.on("data", (c) => (body += c))
  req.on("end", () => {
    received.push({ headers: req.headers as Record<string, string>, body })
    res.writeHead(200).end("ok")
  })
})
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
const hookPort = (receiver.address() as { port: number }).port

const dataDir = await mkdtemp(join(tmpdir(), "gateway-smoke-"))
await chmod(dataDir, 0o755) // the embedded server runs as `postgres` when we are root
const { DATABASE_URL: _, ...env } = process.env
const child = spawn(process.execPath, ["--max-semi-space-size=32", "scripts/start.mjs", "main", "all"], {
  env: { ...env, PORT: String(PORT), HOST: "127.0.0.1", DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_URLS: "true" },
  stdio: ["ignore", "pipe", "pipe"]
})
let output = ""
child.stdout?.on("data", (c) => (output += c))
child.stderr?.on("data", (c) => (output += c))
running.child = child
const service = child
const stop = async () => {
  service.kill("SIGTERM")
  await new Promise((resolve) => service.once("close", resolve))
  receiver.close()
  await rm(dataDir, { recursive: true, force: true })
}

try {
  const started = Date.now()
  for (;;) {
    const ready = await fetch(`${BASE}/ready`).then(
      (r) => r.status,
      () => 0
    )
    if (ready === 200) break
    if (service.exitCode !== null || Date.now() - started > 60_000) fail(`not ready: ${output.slice(-2000)}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const signup = await call("POST", "/api/auth/signup", {
    name: "Smoke",
    email: `smoke-${Date.now()}@example.com`,
    password: "correct horse battery"
  })
  if (signup.status !== 201) fail(`signup ${signup.status}`)
  const key = signup.body.apiKey.fullKey as string
  const hook = await call("POST", "/api/webhooks/upsert", { url: `http://127.0.0.1:${hookPort}/hook` }, key)
  if (hook.status !== 201) fail(`webhook ${hook.status}`)
  const pix = await call(
    "POST",
    "/public/v1/transactions",
    { method: "pix", amount: 1_000, customer: { name: "Ana", email: "ana@example.com", document: "52998224725" } },
    key
  )
  if (pix.status !== 201) fail(`pix ${pix.status} ${JSON.stringify(pix.body)}`)
  const hash = pix.body.data.hash as string
  const paid = await call("POST", `/api/sandbox/transactions/${hash}/pay`, undefined, key)
  if (paid.status !== 200) fail(`pay ${paid.status}`)
  const deadline = Date.now() + 20_000
  const verifier = new Webhook(hook.body.secret)
  for (;;) {
    const event = received.find((r) => r.body.includes("transaction.paid") && r.body.includes(hash))
    if (event) {
      verifier.verify(event.body, event.headers)
      break
    }
    if (Date.now() > deadline) fail("no transaction.paid webhook within 20 s")
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  console.log(`smoke passed under Node ${process.version}: start, signup, PIX, sandbox pay, verified webhook`)
  await stop()
  process.exit(0)
} catch (error) {
  await stop()
  fail(String(error))
}
