import { MIGRATIONS } from "../src/adapters/postgres/Migrations.ts"
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { createTestDatabase } from "./support/database.ts"
import { client } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const run = promisify(execFile)

/** Starts the service with this environment and expects it to refuse, returning what it said. */
const refusal = async (env: Record<string, string>) => {
  try {
    await run("node", ["--import", "tsx", "src/main.ts", "api"], {
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
})
