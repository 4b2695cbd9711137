/**
 * `npx tsx bench/webhooks-main.ts`: bench/webhooks.ts alone, on an embedded PostgreSQL (or DATABASE_URL).
 * BENCH_WEBHOOK_EVENTS / BENCH_WEBHOOK_IDLE_EVENTS shorten it; WORKER_* variables reach the worker, and so does
 * BENCH_WORKER_NODE_OPTIONS as its NODE_OPTIONS.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { startEmbeddedPostgres } from "../src/adapters/postgres/EmbeddedPostgres.ts"
import { benchWebhooks } from "./webhooks.ts"

const dir = await mkdtemp(join(tmpdir(), "gateway-bench-webhooks-"))
await chmod(dir, 0o755)
const scope = Effect.runSync(Scope.make())
try {
  const databaseUrl =
    process.env.DATABASE_URL ?? (await Effect.runPromise(Scope.extend(startEmbeddedPostgres(dir, "bench"), scope)))
  const workerEnv = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith("WORKER_"))
  )
  // e.g. BENCH_WORKER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the worker alone.
  if (process.env.BENCH_WORKER_NODE_OPTIONS) workerEnv.NODE_OPTIONS = process.env.BENCH_WORKER_NODE_OPTIONS
  const result = await benchWebhooks({ databaseUrl, workerEnv })
  console.log(JSON.stringify({ ...result, workerEnv }))
} finally {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await rm(dir, { recursive: true, force: true })
}
