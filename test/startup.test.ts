import { MIGRATIONS } from "../src/adapters/postgres/Migrations.ts"
import { relocatedDataDir } from "../src/adapters/postgres/placement.ts"
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { serviceEntry } from "./support/compiled.ts"
import { freePort } from "./support/config.ts"
import { createTestDatabase } from "./support/database.ts"
import { client } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const run = promisify(execFile)

/**
 * Starts the service with this environment and expects it to refuse, returning what it said. The
 * service runs compiled, as spawnRole's children do (test/support/compiled.ts).
 */
const refusal = async (env: Record<string, string>) => {
  try {
    await run(process.execPath, [...(await serviceEntry()).main, "api"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", LOG_LEVEL: "info", ...env },
      timeout: 30_000
    })
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, output: failed.stdout + failed.stderr }
  }
  throw new Error("the service started although its configuration is bad")
}

/** Starts the service with this environment and expects it to stop, returning what it said and where. */
const failure = async (env: Record<string, string>) => {
  const { DATABASE_URL: _, ...inherited } = process.env
  const merged: Record<string, string | undefined> = {
    ...inherited,
    LOG_LEVEL: "info",
    METRICS_PORT: String(await freePort()),
    ...env
  }
  if (merged.DATABASE_URL === "") delete merged.DATABASE_URL
  try {
    await run(process.execPath, [...(await serviceEntry()).main, "api"], { cwd: ROOT, env: merged, timeout: 50_000 })
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stderr: failed.stderr, output: failed.stdout + failed.stderr }
  }
  throw new Error("the service started although it cannot")
}

describe("configuration errors stop start-up and name the variable", () => {
  it.each([
    ["PORT", { PORT: "not-a-port" }],
    ["RATE_LIMIT_PER_MINUTE", { RATE_LIMIT_PER_MINUTE: "0" }],
    ["WEBHOOK_RETRY_SCHEDULE", { WEBHOOK_RETRY_SCHEDULE: "5,soon" }],
    ["SANDBOX_ENABLED", { SANDBOX_ENABLED: "maybe" }],
    ["JWT_SECRET", { NODE_ENV: "production", CARD_VAULT_KEY: Buffer.alloc(32, 1).toString("base64") }],
    ["CARD_VAULT_KEY", { NODE_ENV: "production", JWT_SECRET: "x".repeat(40) }],
    ["CARD_VAULT_KEY", { CARD_VAULT_KEY: "too-short" }],
    ["ANTIFRAUD_WEIGHTS", { ANTIFRAUD_WEIGHTS: "card_velocity=lots" }],
    ["FEE_CREDIT_CARD", { FEE_CREDIT_CARD: "3,99%" }],
    ["FEE_BILLET", { FEE_BILLET: "R$ 3,49" }],
    ["FEE_PIX", { FEE_PIX: "101%" }],
    ["SETTLEMENT_DAYS_CREDIT_CARD", { SETTLEMENT_DAYS_CREDIT_CARD: "-1" }],
    ["RESERVE_PERCENT", { RESERVE_PERCENT: "150" }],
    ["WITHDRAWAL_DELAY_SECONDS", { WITHDRAWAL_DELAY_SECONDS: "soon" }]
  ])(
    "%s",
    async (variable, env) => {
      const { code, output } = await refusal(env)
      expect(code).not.toBe(0)
      expect(output).toContain(variable)
    },
    40_000
  )
})

/**
 * Issue 23 item 2: a start-up that cannot work prints ONE human line on stderr, with the cause and the
 * way out (docs/operations.md "Start-up errors"), not a JSON log whose message is `[]`.
 */
describe("start-up failures print one line with the cause and the way out", () => {
  const oneLine = async (env: Record<string, string>) => {
    const { code, output, stderr } = await failure(env)
    expect(code, output).toBe(1)
    const lines = stderr.split("\n").filter((l) => l.trim().length > 0)
    expect(lines, output).toHaveLength(1)
    expect(lines[0]).toMatch(/^cannot start: /)
    expect(output).not.toMatch(/"message":\[\]|^\s+at /m)
    return lines[0]!
  }

  it("a port in use names the port and says to free it or set PORT", async () => {
    const port = await freePort()
    const squatter = createServer()
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve))
    try {
      const line = await oneLine({ DATABASE_URL: await createTestDatabase(), PORT: String(port), HOST: "127.0.0.1" })
      expect(line).toContain(`port ${port} is already in use on 127.0.0.1`)
      expect(line).toContain("set PORT")
    } finally {
      await new Promise((resolve) => squatter.close(resolve))
    }
  }, 60_000)

  it("the metrics port in use names METRICS_PORT", async () => {
    const port = await freePort()
    const squatter = createServer()
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve))
    try {
      const line = await oneLine({ DATABASE_URL: await createTestDatabase(), METRICS_PORT: String(port) })
      expect(line).toContain(`port ${port} is already in use on 127.0.0.1`)
      expect(line).toContain("set METRICS_PORT")
    } finally {
      await new Promise((resolve) => squatter.close(resolve))
    }
  }, 60_000)

  it.each([
    ["nobody listens", "postgres://gw:s3cret-pass@127.0.0.1:1/shop", "connection refused at 127.0.0.1:1"],
    ["an unknown host", "postgres://gw:s3cret-pass@db.invalid:5432/shop", 'host "db.invalid" not found']
  ])(
    "a DATABASE_URL where %s names the server, hides the password and gives the way out",
    async (_, url, cause) => {
      const line = await oneLine({ DATABASE_URL: url })
      expect(line).toContain(cause)
      expect(line).toContain(url.replace("s3cret-pass", "***"))
      expect(line).not.toContain("s3cret-pass")
      expect(line).toContain("unset DATABASE_URL to use the embedded PostgreSQL")
    },
    60_000
  )

  it("a HOST that names no address names HOST, not the database", async () => {
    const line = await oneLine({ DATABASE_URL: await createTestDatabase(), HOST: "no-such-host.invalid" })
    expect(line).toContain("HOST=no-such-host.invalid names no address")
    expect(line).not.toContain("PostgreSQL")
  }, 60_000)

  // node:http's createServer threw a RangeError (a stack trace naming headersTimeout) at listen.
  it("HTTP_REQUEST_TIMEOUT_MS below the default HTTP_HEADERS_TIMEOUT_MS names both, before listening", async () => {
    const line = await oneLine({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", HTTP_REQUEST_TIMEOUT_MS: "5000" })
    expect(line).toContain("HTTP_HEADERS_TIMEOUT_MS (10000) must not be above HTTP_REQUEST_TIMEOUT_MS (5000)")
  }, 60_000)

  // It printed a plain line and exited 2.
  it("a bad SHUTDOWN_GRACE_SECONDS is a configuration error like any other", async () => {
    const line = await oneLine({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", SHUTDOWN_GRACE_SECONDS: "soon" })
    expect(line).toContain("invalid configuration: SHUTDOWN_GRACE_SECONDS must be a whole number of seconds")
  }, 60_000)

  it("a DATABASE_URL that is no URL is refused before connecting", async () => {
    const line = await oneLine({ DATABASE_URL: "localhost shop" })
    expect(line).toContain("DATABASE_URL must be a URL like postgres://")
  }, 60_000)

  it.skipIf(process.getuid?.() !== 0)(
    "as root, a relocated data directory planted as a symlink is refused with the command that clears it",
    async () => {
      const privateDir = await mkdtemp(join(tmpdir(), "gateway-planted-"))
      const home = dirname(relocatedDataDir(join(privateDir, "data", "pg")))
      try {
        await mkdir(dirname(home), { recursive: true })
        await symlink(privateDir, home)
        const { DATABASE_URL: _, ...env } = process.env
        const line = await oneLine({ ...env, DATABASE_URL: "", DATA_DIR: join(privateDir, "data") })
        expect(line).toContain(`refusing to place the embedded PostgreSQL in ${home}`)
        expect(line).toContain("symbolic link")
        expect(line).toContain(`rm -rf ${home}`)
      } finally {
        await rm(home, { force: true })
        await rm(privateDir, { recursive: true, force: true })
      }
    },
    60_000
  )
})

describe("migrations", () => {
  const servers: Array<TestServer> = []
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()))
  })

  it("are safe when processes start at once on a fresh database", async () => {
    const databaseUrl = await createTestDatabase()
    const started = await Promise.all([
      startTestServer({}, { databaseUrl, role: "api" }),
      startTestServer({}, { databaseUrl, role: "worker" }),
      startTestServer({}, { databaseUrl, role: "api" })
    ])
    servers.push(...started)
    const applied = await started[0]!.db.query("select count(*)::int as n from effect_sql_migrations")
    // Every migration applied exactly once (the count grows with the project).
    expect(applied.rows[0].n).toBe(Object.keys(MIGRATIONS).length)
    for (const api of [started[0]!, started[2]!]) {
      expect((await client(api.baseUrl).get("/ready")).status).toBe(200)
    }
  }, 60_000)

  it("pin generic plans on graphile-worker's add_job and add_jobs, again after an upgrade replaced them", async () => {
    const databaseUrl = await createTestDatabase()
    const first = await startTestServer({}, { databaseUrl, role: "api" })
    servers.push(first)
    const pinned = async () =>
      (
        await first.db.query<{ proname: string; pinned: boolean }>(
          `select p.proname, coalesce('plan_cache_mode=force_generic_plan' = any(p.proconfig), false) as pinned
           from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname = 'graphile_worker' and p.proname in ('add_job', 'add_jobs') order by 1`
        )
      ).rows
    expect(await pinned()).toEqual([
      { proname: "add_job", pinned: true },
      { proname: "add_jobs", pinned: true }
    ])
    // What `create or replace function` in a later graphile-worker migration does to the setting.
    await first.db.query(
      "alter function graphile_worker.add_jobs(graphile_worker.job_spec[], boolean) reset plan_cache_mode"
    )
    expect((await pinned()).map((r) => r.pinned)).toEqual([true, false])
    servers.push(await startTestServer({}, { databaseUrl, role: "worker" }))
    expect((await pinned()).map((r) => r.pinned)).toEqual([true, true])
    // The functions still schedule jobs as before.
    const job = await first.db.query<{ key: string }>(
      `select key from graphile_worker.add_job('cleanup', '{}'::json,
         run_at := now() + interval '1 day', job_key := 'pinned-test')`
    )
    expect(job.rows[0]!.key).toBe("pinned-test")
  }, 60_000)
})
