import { Config, Effect, Schema } from "effect"

/**
 * The loopback provider: a test-only live adapter that speaks a tiny JSON protocol to a local server
 * (`LOOPBACK_PROVIDER_URL`), so that live mode can be driven end to end through real processes before
 * a real provider exists, and so that a test can count the connections a mode makes (docs/providers.md
 * "Test and live modes"). It is refused at start unless `LIVE_LOOPBACK_ALLOWED=true` outside production:
 * it is not a provider, and no deployment may take money through it. It sends no card number.
 */
export const loopbackBaseUrl = Effect.gen(function* () {
  const allowed = yield* Config.boolean("LIVE_LOOPBACK_ALLOWED").pipe(Config.withDefault(false))
  const production = (yield* Config.string("NODE_ENV").pipe(Config.withDefault("development"))) === "production"
  if (!allowed || production) {
    return yield* Effect.dieMessage(
      "the loopback live provider is for tests only: set LIVE_LOOPBACK_ALLOWED=true outside production"
    )
  }
  return (yield* Config.url("LOOPBACK_PROVIDER_URL")).toString().replace(/\/$/, "")
})

export class LoopbackUnreachable extends Schema.TaggedError<LoopbackUnreachable>()("LoopbackUnreachable", {
  message: Schema.String
}) {}

/** One JSON call; a connection failure, a timeout or a 5xx is LoopbackUnreachable, a 404 is null. */
export const call = <A, I>(
  base: string,
  method: "GET" | "POST",
  path: string,
  response: Schema.Schema<A, I>,
  body?: unknown
): Effect.Effect<A | null, LoopbackUnreachable> =>
  Effect.tryPromise({
    try: async (signal) => {
      const reply = await fetch(`${base}${path}`, {
        method,
        signal: AbortSignal.any([signal, AbortSignal.timeout(5_000)]),
        ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      })
      const text = await reply.text()
      if (reply.status === 404) return null
      if (reply.status >= 300) throw new Error(`loopback answered ${reply.status}`)
      return JSON.parse(text) as unknown
    },
    catch: (error) => new LoopbackUnreachable({ message: String(error) })
  }).pipe(
    Effect.flatMap((raw) =>
      raw === null
        ? Effect.succeed(null)
        : Schema.decodeUnknown(response)(raw).pipe(
            Effect.mapError((e) => new LoopbackUnreachable({ message: `loopback answer not understood: ${e.message}` }))
          )
    )
  )
