import * as http from "node:http"
import * as https from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { Duration, Effect, Layer } from "effect"
import { generateWebhookSecret, signWebhook } from "../crypto/webhook-signature.ts"
import { WebhookSender, type WebhookOutcome, type WebhookRequest } from "../../ports/WebhookSender.ts"
import { checkWebhookUrl, errorCode, type ResolvedAddress, type ResolvedTarget, type Resolver } from "./url-guard.ts"

export interface WebhookSenderOptions {
  /** One deadline for the whole attempt: URL check + DNS + connect + TLS + request + response. */
  readonly timeoutMs: number
  /** Local development and tests only: allows http and private addresses. */
  readonly allowPrivate: boolean
  readonly userAgent?: string
  /** Override DNS (tests); defaults to the system resolver. */
  readonly resolver?: Resolver
}

/** We only need the status; the cap keeps a hostile receiver from streaming into our memory. */
export const MAX_RESPONSE_BYTES = 64 * 1024
const DEFAULT_USER_AGENT = "brazil-payment-gateway-webhooks/0.1"

/** An outcome before its duration is known. */
type Result =
  | { readonly _tag: "Delivered"; readonly httpStatus: 200; readonly responseBody?: string }
  | { readonly _tag: "Rejected"; readonly httpStatus: number; readonly responseBody?: string }
  | Unreachable
type Unreachable = { readonly _tag: "Unreachable"; readonly reason: string }
const unreachable = (reason: string): Unreachable => ({ _tag: "Unreachable", reason })

/** The part of a response body a delivery record keeps (docs/webhooks.md "Deliveries"). */
export const KEPT_RESPONSE_BYTES = 4096
/**
 * The first KEPT_RESPONSE_BYTES of the chunks, as UTF-8 text (a character cut in two is dropped). The
 * receiver's bytes are untrusted: a NUL, the one code point PostgreSQL's text cannot hold (decoded text is
 * otherwise valid UTF-8), becomes U+FFFD, or the record of the attempt would be refused (docs/webhooks.md).
 */
const keptText = (chunks: ReadonlyArray<Buffer>) =>
  new TextDecoder("utf-8", { fatal: false })
    .decode(Buffer.concat(chunks as Array<Buffer>).subarray(0, KEPT_RESPONSE_BYTES))
    .replace(/\uFFFD$/, "")
    .replaceAll("\u0000", "\uFFFD")

const left = (deadline: number) => Math.max(0, deadline - performance.now())
const hostOf = (url: string) => {
  try {
    const { hostname } = new URL(url)
    return hostname.startsWith("[") ? hostname.slice(1, -1) : hostname
  } catch {
    return ""
  }
}

/** Hands Node the addresses the guard already vetted, so no second DNS answer is ever used. */
const pinnedLookup =
  (addresses: ReadonlyArray<ResolvedAddress>): LookupFunction =>
  (_host, options, callback) => {
    const first = addresses[0]
    if (options.all)
      callback(
        null,
        addresses.map((a) => ({ ...a }))
      ) // Node 20 happy eyeballs asks for all
    else if (first) callback(null, first.address, first.family)
    else callback(Object.assign(new Error("no vetted address"), { code: "ENOTFOUND" }), "", 0)
  }

/**
 * Kept-alive sockets, one agent per receiver origin *and* set of vetted addresses: a pooled socket is only
 * reused for a URL whose fresh DNS answer (checked at every delivery) is the one the socket was opened to,
 * so pooling never bypasses the guard or the pin. At 1,000 deliveries/s a TCP (and TLS) handshake per
 * delivery was most of the sender's cost. Idle sockets close after IDLE_SOCKET_MS (under Node's default
 * 5 s server keep-alive, so we rarely write into a socket the receiver is closing) and never keep the
 * process alive; the least recently used agent goes once MAX_AGENTS are open.
 */
const IDLE_SOCKET_MS = 4_000
const MAX_AGENTS = 256
type Agent = http.Agent | https.Agent
const makeAgents = () => {
  const agents = new Map<string, Agent>()
  return (target: ResolvedTarget): Agent => {
    const key = `${target.url.protocol}//${target.url.host}|${target.addresses.map((a) => a.address).join(",")}`
    const found = agents.get(key)
    if (found) {
      agents.delete(key) // re-inserted below: Map order is the LRU order
      agents.set(key, found)
      return found
    }
    const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: "lifo" as const }
    const agent = target.url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options)
    agents.set(key, agent)
    if (agents.size > MAX_AGENTS) {
      const [oldestKey, oldest] = agents.entries().next().value!
      agents.delete(oldestKey)
      retire(oldest)
    }
    return agent
  }
}

/**
 * An agent let go: its idle sockets closed now, each in use once its delivery ends. Node's `destroy()` would
 * cut those in use too, and a slow receiver's delivery in flight, received, would be recorded a connection
 * failure and sent again (`test/webhooks.sender-eviction.test.ts`).
 */
const retire = (agent: Agent) => {
  // Read by Node's agent when a socket is freed: without keep-alive it destroys the socket instead of pooling it.
  ;(agent as unknown as { keepAlive: boolean }).keepAlive = false
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy()
}

/** A reused socket the receiver had closed meanwhile: the request never reached it, so send it again. */
const STALE_SOCKET_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"])
type Attempt = Result | { readonly _tag: "StaleSocket" }

const post = (
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  agent: Agent | false,
  timeoutMs: number
): Effect.Effect<Attempt> =>
  Effect.async<Attempt>((resume) => {
    const { url, hostname } = target
    const secure = url.protocol === "https:"
    let settled = false
    let answered = false
    const req = (secure ? https : http).request({
      method: "POST",
      host: hostname,
      port: url.port === "" ? (secure ? 443 : 80) : Number(url.port),
      path: url.pathname + url.search,
      headers: { ...headers, host: url.host, "content-length": String(Buffer.byteLength(body)) },
      agent,
      lookup: pinnedLookup(target.addresses),
      // SNI and certificate checks use the URL's host name (SNI must not be an IP literal).
      ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {})
    })
    const finish = (result: Attempt, keepSocket = false) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      // Only a fully read 200 leaves its socket to the pool; anything else drops it with any unread body.
      if (!keepSocket) req.destroy()
      resume(Effect.succeed(result))
    }
    req.on("error", (e) =>
      finish(
        !answered && req.reusedSocket && STALE_SOCKET_CODES.has(errorCode(e))
          ? { _tag: "StaleSocket" }
          : unreachable(`connection failed (${errorCode(e)})`)
      )
    )
    req.on("response", (res) => {
      answered = true
      // The first 4 KB of the body are kept on the delivery record, whatever the status.
      const kept: Array<Buffer> = []
      let received = 0
      const keep = (chunk: Buffer) => {
        if (received < KEPT_RESPONSE_BYTES) kept.push(chunk)
        received += chunk.length
      }
      // Redirects are answers, not instructions: following one would bypass the URL guard. A refusal's
      // body is read up to what is kept (it usually says why), then the socket is dropped.
      if (res.statusCode !== 200) {
        const rejected = () =>
          finish({ _tag: "Rejected", httpStatus: res.statusCode ?? 0, responseBody: keptText(kept) })
        res.on("data", (chunk: Buffer) => {
          keep(chunk)
          if (received >= KEPT_RESPONSE_BYTES) rejected()
        })
        res.on("end", rejected)
        res.on("error", rejected)
        res.on("close", rejected)
        return
      }
      // A 200 counts once the response completes (or fills the cap) before the deadline.
      const delivered = (): Result => ({ _tag: "Delivered", httpStatus: 200, responseBody: keptText(kept) })
      res.on("data", (chunk: Buffer) => {
        keep(chunk)
        if (received >= MAX_RESPONSE_BYTES) finish(delivered())
      })
      res.on("end", () => finish(delivered(), true))
      res.on("error", (e) => finish(unreachable(`response failed (${errorCode(e)})`)))
      res.on("close", () => finish(unreachable("connection closed before the response completed")))
    })
    // The rest of the attempt's deadline, as a plain timer: Effect.timeoutTo races two fibers, which at
    // 1,000 deliveries/s cost more CPU than the request itself.
    const timer = setTimeout(() => finish(unreachable("timeout")), timeoutMs)
    req.end(body)
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      req.destroy() // interruption by the caller aborts the socket
    })
  })

const sign = (request: WebhookRequest): Effect.Effect<Record<string, string>, Unreachable> =>
  Effect.try({
    try: () => ({
      "webhook-id": request.deliveryId,
      "webhook-timestamp": String(request.timestamp),
      // During a rotation's overlap both signatures, new first, space-separated (Standard Webhooks).
      "webhook-signature": [request.secret, ...(request.previousSecret ? [request.previousSecret] : [])]
        .map((secret) =>
          signWebhook({ secret, msgId: request.deliveryId, timestamp: request.timestamp, body: request.body })
        )
        .join(" ")
    }),
    // Corrupt stored secret: record an outcome rather than crash the delivery job.
    catch: (e) => unreachable(`cannot sign webhook (${errorCode(e)})`)
  })

export const makeWebhookSender = (options: WebhookSenderOptions) => {
  const guard = { allowPrivate: options.allowPrivate, ...(options.resolver ? { resolver: options.resolver } : {}) }
  const baseHeaders = { "content-type": "application/json", "user-agent": options.userAgent ?? DEFAULT_USER_AGENT }
  const agentFor = makeAgents()

  const attempt = (
    request: WebhookRequest,
    deadline: number,
    sent: { headers: Record<string, string> }
  ): Effect.Effect<Result> =>
    Effect.gen(function* () {
      const signature = yield* sign(request)
      const headers = { ...baseHeaders, ...signature }
      sent.headers = headers
      // Re-checked at every delivery: DNS may have changed since the endpoint was registered.
      const target = yield* guarded(request.url, deadline)
      const first = yield* post(target, headers, request.body, agentFor(target), left(deadline))
      if (first._tag !== "StaleSocket") return first
      // Once, on a fresh socket; a second failure is the attempt's outcome.
      const again = yield* post(target, headers, request.body, false, left(deadline))
      return again._tag === "StaleSocket" ? unreachable("connection reset") : again
    }).pipe(Effect.merge)

  /** The URL check under the attempt's deadline. An IP literal needs no DNS, so nothing there can hang. */
  const guarded = (url: string, deadline: number): Effect.Effect<ResolvedTarget, Unreachable> => {
    const check = Effect.mapError(checkWebhookUrl(url, guard), (e) => unreachable(e.reason))
    if (options.resolver === undefined && isIP(hostOf(url)) !== 0) return check
    return check.pipe(
      Effect.timeoutTo({
        duration: Duration.millis(left(deadline)),
        onTimeout: () => Effect.fail(unreachable("timeout")),
        onSuccess: Effect.succeed
      }),
      Effect.flatten
    )
  }

  const send = (request: WebhookRequest): Effect.Effect<WebhookOutcome> =>
    Effect.suspend(() => {
      const started = performance.now()
      const sent = { headers: { ...baseHeaders } as Record<string, string> }
      return Effect.map(attempt(request, started + options.timeoutMs, sent), (result) => ({
        ...result,
        requestHeaders: sent.headers,
        responseBody: result._tag === "Unreachable" ? null : (result.responseBody ?? null),
        durationMs: Math.round(performance.now() - started)
      }))
    })

  const vet = (url: string) => Effect.asVoid(checkWebhookUrl(url, guard))
  return WebhookSender.of({ send, vet, newSecret: Effect.sync(generateWebhookSecret) })
}

/** Timeouts and durations use real timers, not Effect's Clock: run under the live clock (tests: `it.live`). */
export const WebhookSenderLive = (options: WebhookSenderOptions): Layer.Layer<WebhookSender> =>
  Layer.succeed(WebhookSender, makeWebhookSender(options))
