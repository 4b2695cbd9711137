import { execFile } from "node:child_process"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { serviceEntry } from "./support/compiled.ts"
import { freePort } from "./support/config.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const run = promisify(execFile)
const dirs: Array<string> = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/**
 * Starts `api` on its own embedded PostgreSQL with this environment and expects it to refuse: exit 1 and
 * ONE line on stderr beginning `cannot start:` (docs/operations.md "Start-up errors"), no stack trace.
 */
const refusalLine = async (env: Record<string, string>) => {
  const { DATABASE_URL: _, ...inherited } = process.env
  const dataDir = await mkdtemp(join(tmpdir(), "startup-config-"))
  await chmod(dataDir, 0o755)
  dirs.push(dataDir)
  let failed: { code: number; stdout: string; stderr: string } | undefined
  try {
    await run(process.execPath, [...(await serviceEntry()).main, "api"], {
      cwd: ROOT,
      env: {
        ...inherited,
        LOG_LEVEL: "warning",
        DATA_DIR: dataDir,
        HOST: "127.0.0.1",
        PORT: String(await freePort()),
        METRICS_PORT: String(await freePort()),
        ...env
      },
      timeout: 45_000
    })
  } catch (error) {
    failed = error as { code: number; stdout: string; stderr: string }
  }
  if (failed === undefined) throw new Error("the service started although its configuration is bad")
  const output = `${failed.stdout}\n${failed.stderr}`
  const lines = failed.stderr.split("\n").filter((l) => l.trim().length > 0)
  expect(failed.code, output).toBe(1)
  expect(output).not.toMatch(/^\s+at /m)
  expect(lines, output).toHaveLength(1)
  expect(lines[0]).toMatch(/^cannot start: /)
  return lines[0]!
}

describe("a bad env value is one `cannot start:` line naming the variable", () => {
  it("OTEL_EXPORTER_OTLP_ENDPOINT that is no URL: no stack trace, the variable named", async () => {
    const line = await refusalLine({ OTEL_EXPORTER_OTLP_ENDPOINT: "notaurl" })
    expect(line).toContain("OTEL_EXPORTER_OTLP_ENDPOINT")
  }, 60_000)

  it.each([
    ["LIVE_ACQUIRERS", "visa-direct"],
    ["LIVE_PIX_PROVIDER", "nubank"],
    ["LIVE_BOLETO_PROVIDER", "itau-cnab400"]
  ])(
    "an unknown provider in %s names that variable",
    async (variable, value) => {
      const line = await refusalLine({ [variable]: value })
      expect(line).toContain(variable)
    },
    60_000
  )

  it("a missing secret (CIELO_MERCHANT_KEY) is said to be missing, not `<redacted>`", async () => {
    const line = await refusalLine({ LIVE_ACQUIRERS: "cielo", CIELO_MERCHANT_ID: "merchant-id" })
    expect(line).toContain("CIELO_MERCHANT_KEY")
    expect(line).not.toContain("<redacted>")
  }, 60_000)
})
