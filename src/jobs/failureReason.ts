import { Cause } from "effect"
import { redactBody } from "../http/shared/redact.ts"

/** Longest reason a failed job's log line and graphile-worker's `last_error` carry. */
const MAX_LENGTH = 500

const wordsOf = (value: unknown): string => {
  if (typeof value !== "object" || value === null) return String(value)
  const tag = "_tag" in value && typeof value._tag === "string" ? value._tag : undefined
  const message = "message" in value && typeof value.message === "string" ? value.message : ""
  const code = "code" in value && typeof value.code === "string" ? ` (${value.code})` : ""
  return [tag, message].filter((w) => w !== undefined && w !== "").join(": ") + code
}

/**
 * Why a job failed, in one line: the failure and the causes it wraps (an SqlError wraps pg's error, which
 * names the constraint or the SQLSTATE), so that the worker's "Failed task" line and the job's `last_error`
 * tell an SRE what went wrong instead of only that it did (docs/operations.md "Jobs"). Redacted as the
 * request log is: a provider's error may quote what it was sent.
 */
export const failureReason = (cause: Cause.Cause<unknown>): string => {
  if (Cause.isInterruptedOnly(cause)) return "interrupted"
  const words: Array<string> = []
  let value: unknown = Cause.squash(cause)
  for (let depth = 0; depth < 4 && value !== undefined && value !== null; depth++) {
    const said = wordsOf(value)
    if (said !== "" && !words.includes(said)) words.push(said)
    value = typeof value === "object" && "cause" in value ? value.cause : undefined
  }
  const reason = redactBody(words.join(" ← ") || "unknown failure")
  return reason.length > MAX_LENGTH ? `${reason.slice(0, MAX_LENGTH - 1)}…` : reason
}
