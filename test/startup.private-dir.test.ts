import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

/**
 * Issue 11: as root with the data in a private (0700) directory, the embedded PostgreSQL, which must
 * run as the unprivileged `postgres` user, cannot reach it. Start-up stops at once with one clear line
 * naming the directory and the fix, not an unhandled `spawn … EACCES` stack trace.
 */
const ROOT = fileURLToPath(new URL("..", import.meta.url))
const asRoot = process.getuid?.() === 0

describe.skipIf(!asRoot)("start-up in a private directory, as root", () => {
  it("stops within seconds with one line naming the directory and the fix", async () => {
    const privateDir = await mkdtemp(join(tmpdir(), "gateway-private-")) // mkdtemp makes it 0700
    try {
      const { DATABASE_URL: _, ...env } = process.env // the embedded server, not the run's PostgreSQL
      const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "all"], {
        cwd: ROOT,
        env: { ...env, DATA_DIR: join(privateDir, "data"), PORT: "39999", LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout.on("data", (c) => (output += c))
      child.stderr.on("data", (c) => (output += c))
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000)
        child.on("close", (c) => {
          clearTimeout(timer)
          resolve(c)
        })
      })
      expect(code, output).not.toBe(0)
      expect(code, output).not.toBeNull() // it stopped by itself
      expect(output).toContain(privateDir)
      expect(output).toContain("mode 0700")
      expect(output).toContain("DATABASE_URL")
      expect(output).not.toMatch(/EACCES|Unhandled|^\s+at /m)
    } finally {
      await rm(privateDir, { recursive: true, force: true })
    }
  }, 30_000)
})
