import { randomUUID } from "node:crypto"
import { Agent, request as httpsRequest } from "node:https"
import { Duration, Effect, Either, Redacted, Schema, SynchronizedRef } from "effect"
import { ProviderUnavailable, Unprocessable } from "../../../domain/errors.ts"
import type { BcbPixConfig } from "./config.ts"
import { Problema, Token } from "./wire.ts"

/** What came back over the wire, before the API's meaning is read into it. */
interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: string
}

export type PixError = ProviderUnavailable | Unprocessable

const unavailable = (message: string, retryAfterSeconds = 30) =>
  new ProviderUnavailable({ provider: "pix", message, retryAfterSeconds })

/** The PSP answered something we could not read: as good as no answer. */
export const unreadable = () => unavailable("the PIX provider answered something unreadable; retry later")

/** A refused request in our words: the PSP's problem body stays in our logs, never reaches the merchant. */
export const refused = (code = "pix_rejected", message = "the PIX provider refused the request") =>
  new Unprocessable({ code, message })

const retryAfterOf = (reply: Reply): number => {
  const raw = reply.headers["retry-after"]
  const n = Number(Array.isArray(raw) ? raw[0] : raw)
  return Number.isInteger(n) && n > 0 && n <= 3600 ? n : 30
}

/** The `TipoErro` of an RFC 7807 body (`…/error/NaoEncontrado` → `NaoEncontrado`), if it is one. */
export const problemType = (body: string): string | null => {
  try {
    const decoded = Schema.decodeUnknownEither(Problema)(JSON.parse(body))
    return Either.isRight(decoded) ? (decoded.right.type.split("/").pop() ?? null) : null
  } catch {
    return null
  }
}

/**
 * One API Pix conversation: mTLS with the merchant's certificate on every connection (tokens included),
 * an OAuth2 client-credentials token cached until shortly before it expires and fetched again once on a
 * 401, the profile's extra headers and query parameters, and the answer's HTTP status read into our typed
 * errors (docs/providers.md). Secrets, tokens and key material never reach a log or an error message.
 */
export const makeClient = (config: BcbPixConfig) =>
  Effect.gen(function* () {
    const agent = new Agent({ ...config.tls, keepAlive: true, maxSockets: 8 })
    yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
    const profile = config.profile

    const send = (
      method: string,
      url: URL,
      headers: Record<string, string>,
      body: string | undefined
    ): Effect.Effect<Reply, ProviderUnavailable> =>
      Effect.async<Reply, ProviderUnavailable>((resume, signal) => {
        const req = httpsRequest(url, { method, agent, headers, signal }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (chunk: Buffer) => chunks.push(chunk))
          res.on("end", () =>
            resume(
              Effect.succeed({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString("utf8")
              })
            )
          )
          res.on("error", () => resume(Effect.fail(unavailable("the PIX provider dropped the connection"))))
        })
        req.on("error", () => resume(Effect.fail(unavailable("the PIX provider could not be reached"))))
        if (body !== undefined) req.write(body)
        req.end()
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(config.timeoutMs),
          onTimeout: () => unavailable("the PIX provider did not answer in time")
        })
      )

    const fetchToken = Effect.gen(function* () {
      const url = new URL(config.tokenUrl)
      if (profile.grantTypeInQuery) url.searchParams.set("grant_type", "client_credentials")
      const secret = config.clientSecret === null ? null : Redacted.value(config.clientSecret)
      const headers: Record<string, string> = { accept: "application/json" }
      const fields: Record<string, string> = { grant_type: "client_credentials" }
      if (profile.scopes !== null) fields.scope = profile.scopes
      if (profile.tokenAuth === "basic") {
        headers.authorization = `Basic ${Buffer.from(`${config.clientId}:${secret ?? ""}`).toString("base64")}`
      } else {
        fields.client_id = config.clientId
        if (secret !== null) fields.client_secret = secret
      }
      let body: string
      if (profile.tokenBodyJson) {
        headers["content-type"] = "application/json"
        body = JSON.stringify(fields)
      } else {
        headers["content-type"] = "application/x-www-form-urlencoded"
        body = new URLSearchParams(fields).toString()
      }
      const reply = yield* send("POST", url, headers, body)
      if (reply.status !== 200 && reply.status !== 201) {
        yield* Effect.logWarning(`PIX provider token request refused: HTTP ${reply.status}`)
        return yield* unavailable("the PIX provider refused our credentials", retryAfterOf(reply))
      }
      const token = yield* Schema.decodeUnknown(Schema.parseJson(Token))(reply.body).pipe(Effect.mapError(unreadable))
      const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      // Renewed a little early so a request never leaves with a token about to lapse.
      return { value: token.access_token, expiresAt: now + Math.max(0, token.expires_in - 30) * 1000 }
    })

    const cache = yield* SynchronizedRef.make<{ value: string; expiresAt: number } | null>(null)

    const token = (fresh: boolean) =>
      SynchronizedRef.modifyEffect(cache, (cached) =>
        Effect.gen(function* () {
          const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          if (!fresh && cached !== null && cached.expiresAt > now) return [cached.value, cached] as const
          const got = yield* fetchToken
          return [got.value, got] as const
        })
      )

    /** Drops the cached token only if it is still the one that was refused (two 401s refresh once). */
    const invalidate = (refused: string) =>
      SynchronizedRef.update(cache, (cached) => (cached?.value === refused ? null : cached))

    const apiCall = (method: string, path: string, body: unknown, query: Record<string, string>) =>
      Effect.gen(function* () {
        const url = new URL(config.apiBase + path)
        for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v)
        const appKey = config.appKey === null ? null : Redacted.value(config.appKey)
        if (profile.appKeyQuery !== null && appKey !== null)
          url.searchParams.set(profile.appKeyQuery[config.environment], appKey)
        const headers: Record<string, string> = { accept: "application/json" }
        if (profile.appKeyHeader !== null && appKey !== null) headers[profile.appKeyHeader] = appKey
        if (profile.correlationHeader !== null) headers[profile.correlationHeader] = randomUUID()
        if (profile.accountHeader !== null && config.account !== null) headers[profile.accountHeader] = config.account
        const payload = body === undefined ? undefined : JSON.stringify(body)
        if (payload !== undefined) headers["content-type"] = "application/json"
        const attempt = (bearer: string) =>
          send(method, url, { ...headers, authorization: `Bearer ${bearer}` }, payload)
        const first = yield* token(false)
        const reply = yield* attempt(first)
        if (reply.status !== 401) return reply
        // An expired or revoked token: one new token, one more try (docs/providers.md).
        yield* invalidate(first)
        return yield* attempt(yield* token(true))
      })

    /**
     * The call, with the answer's status read: 2xx → the body; 404 → `notFound`; 5xx, 401 after a fresh
     * token, 403 (our credentials or scopes: nothing a merchant can fix) → ProviderUnavailable; any other
     * refusal → Unprocessable, its problem type logged for the operator.
     */
    const call = (
      method: "GET" | "PUT" | "PATCH" | "POST",
      path: string,
      options: {
        readonly body?: unknown
        readonly query?: Record<string, string>
        readonly notFound?: () => PixError
      } = {}
    ): Effect.Effect<string, PixError> =>
      Effect.gen(function* () {
        const reply = yield* apiCall(method, path, options.body, options.query ?? {})
        if (reply.status >= 200 && reply.status < 300) return reply.body
        const type = problemType(reply.body)
        const resource = path.split("/")[1] ?? ""
        yield* Effect.logWarning(
          `PIX provider refused ${method} ${resource}: HTTP ${reply.status} ${type ?? "(no problem type)"}`
        )
        if (reply.status === 404 && options.notFound !== undefined) return yield* options.notFound()
        if (reply.status >= 500 || reply.status === 401 || reply.status === 403 || reply.status === 429)
          return yield* unavailable("the PIX provider is unavailable; retry later", retryAfterOf(reply))
        return yield* refused()
      })

    return { call }
  })

export type PixClient = Effect.Effect.Success<ReturnType<typeof makeClient>>
