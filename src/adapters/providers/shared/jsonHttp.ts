import { Data, Effect } from "effect"

/**
 * One JSON call to a provider, with the distinction a payment needs (docs/providers.md "Failover
 * rules"): did the provider certainly not get the request, or may it have acted on it?
 *
 * - `NotSent`: the connection was never made (refused, no route, unknown host). Nothing happened there.
 * - `NoAnswer`: the request may have been received (a timeout, the connection dropped after sending):
 *   the outcome is unknown until the provider is asked.
 *
 * Headers are never logged and never appear in these errors: they carry the merchant's credentials.
 */
export class NotSent extends Data.TaggedError("NotSent")<{ readonly message: string }> {}
export class NoAnswer extends Data.TaggedError("NoAnswer")<{ readonly message: string }> {}

export interface Answer {
  readonly status: number
  /** The parsed JSON body, or undefined when it is empty or not JSON. */
  readonly body: unknown
}

// Errors of the socket layer that happen before a byte of the request leaves this machine.
const BEFORE_SENDING = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"])

const causeCode = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 4 && current !== null && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string") return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

export const jsonCall = (request: {
  readonly method: "GET" | "POST" | "PUT"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: unknown
  readonly timeoutMs: number
}): Effect.Effect<Answer, NotSent | NoAnswer> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(request.url, {
        method: request.method,
        headers: {
          accept: "application/json",
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
          ...request.headers
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.any([signal, AbortSignal.timeout(request.timeoutMs)])
      })
      const text = await response.text()
      let body: unknown = undefined
      if (text.length > 0) {
        try {
          body = JSON.parse(text)
        } catch {
          body = undefined
        }
      }
      return { status: response.status, body } satisfies Answer
    },
    catch: (error) => {
      const code = causeCode(error)
      const path = new URL(request.url).pathname
      if (code !== undefined && BEFORE_SENDING.has(code)) {
        return new NotSent({ message: `${request.method} ${path}: ${code}` })
      }
      const name = (error as { name?: string } | null)?.name
      const why =
        name === "TimeoutError" ? `no answer within ${request.timeoutMs} ms` : (code ?? name ?? "connection lost")
      return new NoAnswer({ message: `${request.method} ${path}: ${why}` })
    }
  })
