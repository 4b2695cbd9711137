import { stopStartedPostgresNow } from "./adapters/postgres/EmbeddedPostgres.ts"

const DEFAULT_GRACE_SECONDS = 25

/**
 * SHUTDOWN_GRACE_SECONDS [25]: within Kubernetes' default 30 s termination grace. Read before the configuration
 * layer (the backstop is installed first), so a bad value is refused here the way src/startupFailure.ts words
 * a bad variable: one `cannot start:` line and exit code 1 (docs/operations.md "Start-up errors"). Empty is
 * unset (docs/configuration.md "Empty values").
 */
export const graceSeconds = (raw: string | undefined = process.env.SHUTDOWN_GRACE_SECONDS) => {
  if (raw === undefined || raw.trim() === "") return DEFAULT_GRACE_SECONDS
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1 || n > 3600) {
    console.error(
      "cannot start: invalid configuration: SHUTDOWN_GRACE_SECONDS must be a whole number of seconds " +
        `from 1 to 3600, got "${raw}". Fix it and start again.`
    )
    process.exit(1)
  }
  return n
}

/** Exits with `code` after `seconds` if the orderly stop has not ended the process by then. */
export const exitWithin = (seconds: number, code: number) =>
  setTimeout(() => {
    console.error(JSON.stringify({ level: "WARN", message: `shutdown forced: not done after ${seconds} s` }))
    stopStartedPostgresNow()
    process.exit(code)
  }, seconds * 1000).unref()

/**
 * The backstop of a graceful shutdown (docs/operations.md). The first SIGTERM or SIGINT starts the
 * orderly stop (Effect's runtime interrupts the layers: HTTP stops accepting and drains, the worker
 * finishes its jobs, the embedded PostgreSQL stops). If that is not done within the grace period, or a
 * second signal arrives, the process stops its embedded PostgreSQL without waiting and exits 0: a stuck
 * finalizer (a pool waiting on a database that went away) can never keep it alive.
 */
export const installShutdownBackstop = (grace = graceSeconds()) => {
  let signals = 0
  const force = (why: string) => {
    console.error(JSON.stringify({ level: "WARN", message: `shutdown forced: ${why}` }))
    stopStartedPostgresNow()
    process.exit(0)
  }
  const onSignal = (signal: NodeJS.Signals) => {
    signals++
    if (signals > 1) return force(`second ${signal}`)
    setTimeout(() => force(`not done after the ${grace} s grace period`), grace * 1000).unref()
  }
  process.on("SIGTERM", onSignal)
  process.on("SIGINT", onSignal)
}
