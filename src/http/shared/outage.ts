import { Cause } from "effect"

// SQLSTATE classes and client errors that mean "the database is not reachable now", not "this request is wrong".
const CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006"
])
const MESSAGES = new RegExp(
  [
    "connection terminated",
    "connection refused",
    "ECONNREFUSED",
    "not queryable",
    "timeout exceeded when trying to connect",
    // A connection the pool dropped when PostgreSQL stopped answering (src/adapters/postgres/Database.ts).
    "PostgreSQL did not answer",
    "database system is (starting up|shutting down|in recovery)",
    "terminating connection"
  ].join("|"),
  "i"
)

const unavailable = (error: unknown, depth = 0): boolean => {
  if (depth > 6 || error === null || typeof error !== "object") return false
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; _tag?: unknown }
  if (typeof e.code === "string" && CODES.has(e.code)) return true
  if (typeof e.message === "string" && MESSAGES.test(e.message)) return true
  return unavailable(e.cause, depth + 1)
}

/**
 * Whether a request failed because PostgreSQL is unreachable (restart, failover, network): such a
 * request is answered 503 with Retry-After, since the same request may well succeed in a moment.
 */
export const isDatabaseOutage = (cause: Cause.Cause<unknown>) =>
  [...Cause.defects(cause), ...Cause.failures(cause)].some((e) => unavailable(e))
