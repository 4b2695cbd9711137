/**
 * `npx tsx bench/lists.run.ts`: `benchLists` on its own, against the service as a separate process
 * (`src/main.ts api`) over an embedded PostgreSQL, so that the RSS measured is the service's alone.
 * BENCH_LIST_ROWS (default 1,000,000); BENCH_NODE_FLAGS adds flags to the service's node.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { startEmbeddedPostgres } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { startBenchApi } from "./setup.ts"
import { benchLists } from "./lists.ts"

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "gateway-bench-lists-"))
  await chmod(dir, 0o755)
  const scope = Effect.runSync(Scope.make())
  const databaseUrl = await Effect.runPromise(Scope.extend(startEmbeddedPostgres(join(dir, "pg"), "bench"), scope))
  const { service, baseUrl } = await startBenchApi(
    databaseUrl,
    dir,
    (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter((flag) => flag.length > 0)
  )
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  try {
    const signup = await fetch(`${baseUrl}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "Bench Lists",
        email: `lists-${Date.now()}@example.com`,
        password: "correct horse battery"
      })
    }).then((r) => r.json() as Promise<{ account: { id: string }; apiKey: { fullKey: string } }>)
    const rows = Number(process.env.BENCH_LIST_ROWS ?? 1_000_000)
    const seeded = performance.now()
    const result = await benchLists(baseUrl, db, signup.apiKey.fullKey, signup.account.id, { pid: service.pid!, rows })
    console.log(JSON.stringify({ seedAndReadMs: Math.round(performance.now() - seeded), ...result }))
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
