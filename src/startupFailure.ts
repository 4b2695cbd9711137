import { Cause, ConfigError } from "effect"

/** The variables that name what a failure was about: which listener, which database. */
interface StartupEnv {
  readonly DATABASE_URL?: string | undefined
  readonly METRICS_PORT?: string | undefined
  readonly HOST?: string | undefined
  readonly METRICS_HOST?: string | undefined
  readonly PIX_WEBHOOK_HOST?: string | undefined
}

/**
 * The one line a start-up failure prints (docs/operations.md "Start-up errors"): the cause and the
 * way out, instead of a JSON log whose message is `[]` with the cause buried in a stack trace. Returns
 * undefined for a failure it does not recognise, which is then reported in full.
 */
export const describeStartupFailure = (
  cause: Cause.Cause<unknown>,
  env: StartupEnv = process.env
): string | undefined => {
  const errors = [...chain([...Cause.failures(cause), ...Cause.defects(cause)])]
  for (const error of errors) {
    if (ConfigError.isConfigError(error)) {
      return `cannot start: invalid configuration: ${configProblems(error).join("; ")}. Fix it and start again.`
    }
    if (error instanceof Error && error.name === "PlacementError") return `cannot start: ${error.message}`
  }
  for (const error of errors) {
    // Set empty is unset (docs/configuration.md "Empty values"): the default port, as AppConfig read it.
    const line = listenFailure(error, env.METRICS_PORT?.trim() || "9464") ?? listenHostNotFound(error, env)
    if (line !== undefined) return line
  }
  for (const error of errors) {
    const reason = databaseFailure(error)
    if (reason === undefined) continue
    return env.DATABASE_URL
      ? `cannot start: cannot connect to the PostgreSQL of DATABASE_URL (${redactedUrl(env.DATABASE_URL)}): ` +
          `${reason}. Check the URL and that the server is running, ` +
          `or unset DATABASE_URL to use the embedded PostgreSQL.`
      : `cannot start: cannot connect to the embedded PostgreSQL: ${reason}. Start again; if it persists, ` +
          `set LOG_LEVEL=debug to see PostgreSQL's own output.`
  }
  for (const error of errors) {
    if (error instanceof Error && error.message.startsWith("embedded PostgreSQL failed to start")) {
      return (
        `cannot start: ${error.message.split("\n")[0]!.trim()}. Set LOG_LEVEL=debug to see PostgreSQL's output, ` +
        `or set DATABASE_URL to a PostgreSQL server.`
      )
    }
  }
  return undefined
}

/** `PORT: Expected a network port value…` for each problem of a (possibly composite) ConfigError. */
const configProblems = (error: ConfigError.ConfigError): ReadonlyArray<string> => {
  switch (error._op) {
    case "And":
    case "Or":
      return [...configProblems(error.left), ...configProblems(error.right)]
    case "InvalidData":
    case "MissingData":
    case "SourceUnavailable":
    case "Unsupported":
      // Messages written in AppConfig already name their variable; the built-in ones need the path. A missing
      // `Config.redacted` says only `<redacted>` (effect hides the value it does not have): it is said missing.
      if (error._op === "MissingData" && error.path.length > 0 && error.message.includes("<redacted>"))
        return [`${error.path.join("_")} is required`]
      return [
        error.path.length === 0 || error.message.includes(error.path.join("_"))
          ? error.message
          : `${error.path.join("_")}: ${error.message}`
      ]
  }
}

/** Every error and the errors it wraps (`cause`), outermost first. */
function* chain(roots: ReadonlyArray<unknown>): Generator<unknown> {
  for (const root of roots) {
    let current: unknown = root
    for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
      yield current
      current = (current as { cause?: unknown }).cause
    }
  }
}

interface SystemError {
  readonly code?: string
  readonly syscall?: string
  readonly address?: string
  readonly port?: number
  readonly hostname?: string
  readonly message?: string
}

const listenFailure = (error: unknown, metricsPort: string): string | undefined => {
  const e = error as SystemError
  if (typeof e !== "object" || e === null || e.syscall !== "listen") return undefined
  const where = `${e.address ?? "?"}:${e.port ?? "?"}`
  // The metrics listener (docs/operations.md "Metrics") has its own variable.
  const variable = String(e.port) === metricsPort ? "METRICS_PORT" : "PORT"
  switch (e.code) {
    case "EADDRINUSE":
      return (
        `cannot start: port ${e.port} is already in use on ${e.address} (another instance of the gateway or ` +
        `another program listens there): stop it, or set ${variable} to a free port.`
      )
    case "EACCES":
      return (
        `cannot start: not allowed to listen on ${where} (ports below 1024 need privileges): ` +
        `set ${variable} to 1024 or above.`
      )
    case "EADDRNOTAVAIL":
      return (
        `cannot start: ${e.address} is not an address of this machine: ` +
        `set HOST to one of its addresses or 0.0.0.0.`
      )
    default:
      return undefined
  }
}

/**
 * A listener's host that names no address: net.Server#listen looks the name up first (dns.lookup) and fails
 * with that lookup's error (syscall getaddrinfo, ENOTFOUND), not a `listen` one. pg fails the same way for
 * DATABASE_URL's host, so the failure is the listener's only when its name is one of the listeners' variables
 * and not the database's host.
 */
const listenHostNotFound = (error: unknown, env: StartupEnv): string | undefined => {
  const e = error as SystemError
  if (typeof e !== "object" || e === null || e.syscall !== "getaddrinfo") return undefined
  if (e.code !== "ENOTFOUND" && e.code !== "EAI_AGAIN") return undefined
  if (e.hostname === undefined || e.hostname === hostOf(env.DATABASE_URL)) return undefined
  // Unset (or empty: docs/configuration.md "Empty values") is the default, an address that needs no lookup.
  const listeners = [
    ["HOST", env.HOST],
    ["METRICS_HOST", env.METRICS_HOST],
    ["PIX_WEBHOOK_HOST", env.PIX_WEBHOOK_HOST]
  ] as const
  const variable = listeners.find(([, value]) => value?.trim() === e.hostname)?.[0]
  if (variable === undefined) return undefined
  return (
    `cannot start: ${variable}=${e.hostname} names no address (${e.code}): ` +
    `set ${variable} to an address of this machine, or 0.0.0.0 for all of them.`
  )
}

const hostOf = (url: string | undefined) => {
  try {
    return url === undefined ? undefined : new URL(url).hostname
  } catch {
    return undefined
  }
}

const databaseFailure = (error: unknown): string | undefined => {
  const e = error as SystemError & { readonly severity?: string; readonly user?: string }
  if (typeof e !== "object" || e === null) return undefined
  switch (e.code) {
    case "ECONNREFUSED":
      return `connection refused at ${e.address}:${e.port} (no server listens there)`
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host "${e.hostname}" not found`
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `no answer from ${e.address ?? "the host"} (${e.code})`
    case "28P01":
    case "28000":
    case "3D000":
    case "42501":
      // PostgreSQL's own sentence: password authentication failed for user "x", database "y" does not exist…
      return e.message
    default:
      return typeof e.message === "string" && /timeout expired|terminated unexpectedly/i.test(e.message)
        ? e.message
        : undefined
  }
}

/**
 * The URL with its password hidden (never log a credential: docs/operations.md), also one given in the query
 * (`?password=`, `?sslpassword=`), which pg reads as libpq does.
 */
export const redactedUrl = (raw: string) => {
  try {
    const url = new URL(raw)
    if (url.password) url.password = "***"
    for (const name of [...url.searchParams.keys()])
      if (/^(ssl)?password$/i.test(name)) url.searchParams.set(name, "***")
    return url.toString()
  } catch {
    return "an unparsable URL"
  }
}
