import { currentExportedSpan } from "../../spans.ts"
import { randomUUID } from "node:crypto"
import {
  FileSystem,
  HttpApiBuilder,
  HttpApiError,
  HttpIncomingMessage,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Cause, Context, Effect, FiberRef, LogLevel, Option } from "effect"
import { unknownFieldMessage } from "../../domain/errors.ts"
import { Metrics } from "../../ports/Metrics.ts"
import { GatewayApi } from "../Api.ts"
import {
  BadRequest,
  type HttpError,
  InternalServerError,
  isHttpError,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  TooManyRequests
} from "./errors.ts"
import { acceptBody, acceptUrl, MAX_BODY_BYTES } from "./body.ts"
import { challengeFor } from "./challenge.ts"
import { acceptQuery } from "./query.ts"
import { Draining } from "./Draining.ts"
import { isDatabaseOutage } from "./outage.ts"
import {
  holdsCardOrSecret,
  holdsSecret,
  isSecretKey,
  redactBody,
  redactPans,
  redactUrl,
  redactUrlPans,
  REDACTED
} from "./redact.ts"
import { RequestNote } from "./requestNote.ts"
import { RequestLog } from "../../ports/RequestLog.ts"
import { type RouteTemplate, routeTable } from "./routes.ts"
import { invalidLinkResponse } from "../checkout/invalidLink.ts"
import { prefersHtml } from "../checkout/negotiate.ts"
import { replayedAhead } from "./idempotency.ts"

const routes = routeTable(GatewayApi, [
  ["GET", "/openapi.json"],
  ["GET", "/docs"],
  ["GET", "/favicon.ico"],
  ["POST", "/ops/bank/retornos"]
])

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/

/**
 * The client's X-Request-Id, when it is one the service can keep: a well-formed id that holds no card number
 * nor secret (it goes into every log line, the request log and the answer); otherwise a fresh one.
 */
const requestIdOf = (incoming: string | undefined) =>
  incoming !== undefined && REQUEST_ID.test(incoming) && !holdsSecret(incoming) ? incoming : randomUUID()

/**
 * The methods the metrics name; any other (Node's parser takes some 35: PROPFIND, MKCALENDAR…) is "other", as
 * an unknown path is "unmatched": an anonymous client must not multiply the series (docs/operations.md).
 */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/**
 * "buyerAddress.state" for a decode issue at ["buyerAddress", "state"]; "body" at the root. A key the
 * merchant made up may be a card number (`{"4556…": 1}`): errorBody redacts it in the answer.
 */
const fieldOf = (path: ReadonlyArray<PropertyKey>) =>
  path.length === 0
    ? "body"
    : path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("")

// Our rule messages read on from the field name ("document must be a valid CPF"); Schema's own
// ("Expected string, actual 1") follow a colon.
// Messages that already start with the field name (the domain's own) stay as they are.
const phrase = (field: string, message: string) =>
  message === "is missing"
    ? `${field} is required`
    : message.startsWith(field)
      ? message
      : /^[a-z]/.test(message)
        ? `${field} ${message}`
        : `${field}: ${message}`

/** The value Schema quotes at the end of its message, after ", actual ". */
const ACTUAL = /, actual ([\s\S]*)$/

/** Whether a decode message's quoted value may hold a card number, a CVV or a secret (see fromDecodeError). */
const quotesSecret = (path: ReadonlyArray<PropertyKey>, message: string) => {
  if (path.some((key) => typeof key === "string" && isSecretKey(key))) return true
  const actual = ACTUAL.exec(message)?.[1]
  if (actual === undefined) return false
  return /^[[{]/.test(actual) || redactBody(actual) !== actual
}

const fromDecodeError = (error: HttpApiError.HttpApiDecodeError) => {
  // One error per field: an optional field's union also reports "Expected undefined".
  const seen = new Set<string>()
  const errors = error.issues.flatMap((issue) => {
    const field = fieldOf(issue.path)
    if (seen.has(field)) return []
    seen.add(field)
    // A key the body's schema does not declare (payload.ts): Schema's "is unexpected, expected: …"
    // lists every other field; the merchant needs the one it sent by mistake.
    if (issue._tag === "Unexpected") return [{ field, message: unknownFieldMessage(field) }]
    // Schema's message quotes the value it refused ("Expected string, actual 4111111111111111"): not a
    // card number's, a CVV's or a secret's, which the answer would carry back (docs/input.md). Nor an
    // object, a list or a text holding one: a `card` sent as a string or a list, a body sent as a list,
    // quote the card itself.
    const message = quotesSecret(issue.path, issue.message) ? issue.message.replace(ACTUAL, "") : issue.message
    return [{ field, message: phrase(field, message) }]
  })
  return BadRequest.of({ message: errors[0]?.message ?? "invalid request", code: "validation_failed", errors })
}

/**
 * The Idempotency-Key as the request log keeps it: one holding a card number or a secret (refused:
 * idempotency.ts) redacted whole, any other number in it that may be a card number as in any text.
 */
const idempotencyKeyOf = (key: string | undefined) =>
  key === undefined ? null : holdsCardOrSecret(key) ? REDACTED : redactPans(key)

/** The router's longest path parameter (find-my-way's `maxParamLength`): past it no route matches. */
const MAX_PARAM_LENGTH = 100

/**
 * The path parameter the router refused for its length, when this request names a route of its method: a
 * 400 naming it, as the route's own schema names a malformed one, not an unknown route's 404.
 */
const overlongParam = (route: RouteTemplate | undefined, method: string, path: string) => {
  if (route === undefined || route.method !== method) return undefined
  const names = route.path.split("/")
  const values = path.replace(/\/$/, "").split("/")
  const at = names.findIndex((part, i) => part.startsWith(":") && (values[i]?.length ?? 0) > MAX_PARAM_LENGTH)
  return at < 0 ? undefined : names[at]!.slice(1)
}

/** Turns whatever a request failed with into the one envelope, never leaking internals. */
const toHttpError = (
  cause: Cause.Cause<unknown>,
  path: string,
  method: string
): { error: HttpError; defect: boolean } => {
  const failure = Cause.squash(cause)
  if (isHttpError(failure)) return { error: failure, defect: false }
  if (failure instanceof HttpApiError.HttpApiDecodeError) return { error: fromDecodeError(failure), defect: false }
  if (HttpServerError.isServerError(failure)) {
    switch (failure._tag) {
      case "RouteNotFound": {
        const long = overlongParam(routes.route(method, path), method, path)
        if (long !== undefined) {
          const message = `${long} must have at most ${MAX_PARAM_LENGTH} characters`
          return {
            error: BadRequest.of({ message, code: "validation_failed", errors: [{ field: long, message }] }),
            defect: false
          }
        }
        const allowed = routes.allowedMethods(path)
        return allowed.length > 0 && !allowed.includes(method)
          ? {
              error: MethodNotAllowed.of({
                message: `${method} is not allowed on ${redactUrlPans(path)}; use ${allowed.join(", ")}`,
                code: "method_not_allowed"
              }),
              defect: false
            }
          : {
              error: NotFound.of({
                message: `Route ${method} ${redactUrlPans(path)} not found`,
                code: "route_not_found"
              }),
              defect: false
            }
      }
      case "RequestError":
        if (failure.reason === "Decode") {
          return /maxBytes|size|large|limit/i.test(String(failure.description ?? failure.cause))
            ? {
                error: PayloadTooLarge.of({ message: "request body is larger than 1 MiB", code: "payload_too_large" }),
                defect: false
              }
            : {
                error: BadRequest.of({
                  message: "request body is not valid JSON",
                  code: "malformed_json",
                  errors: [{ field: "body", message: "request body is not valid JSON" }]
                }),
                defect: false
              }
        }
    }
  }
  if (isDatabaseOutage(cause)) {
    return {
      error: ServiceUnavailable.of({
        message: "the database is unavailable; retry shortly (with the same Idempotency-Key for a charge or refund)",
        code: "database_unavailable",
        retryAfter: 1
      }),
      defect: false
    }
  }
  return {
    error: InternalServerError.of({
      message: "internal error; retry with exponential back-off",
      code: "internal_error"
    }),
    defect: true
  }
}

const withTrace = (error: InternalServerError, traceId: string) =>
  InternalServerError.of({ message: error.message, code: error.code ?? "internal_error", traceId })

/**
 * An error without a card number in its message or its fields' names and messages: the one place for what
 * the client sent and an error repeats (a query parameter's name, a body's key), for the answer and the
 * idempotency store's copy alike (docs/input.md). A path is redacted where it is quoted (`redactUrlPans`),
 * which reads it as decoded.
 */
const withoutCardNumbers = (error: HttpError): object => {
  const body: { message: string; errors?: ReadonlyArray<{ field: string; message: string }> | undefined } = {
    ...error
  }
  body.message = redactPans(body.message)
  if (body.errors !== undefined)
    body.errors = body.errors.map((e) => ({ ...e, field: redactPans(e.field), message: redactPans(e.message) }))
  return body
}

/**
 * An error's body as the interface of `path` writes it (annotations.ts): /public/v1 adds `success: false`
 * (CONTRACT §4). The idempotency store keeps this very body, so a replay is the first answer byte for byte.
 */
export const errorBody = (error: HttpError, path: string): object =>
  routes.errorBody(path) === "successFlag"
    ? { success: false, ...withoutCardNumbers(error) }
    : withoutCardNumbers(error)

const respond = (error: HttpError, path: string) => {
  const response = HttpServerResponse.unsafeJson(errorBody(error, path), { status: error.statusCode })
  if (error instanceof TooManyRequests || error instanceof ServiceUnavailable)
    return HttpServerResponse.setHeader(response, "retry-after", String(error.retryAfter))
  if (error instanceof MethodNotAllowed)
    return HttpServerResponse.setHeader(response, "allow", routes.allowedMethods(path).join(", "))
  return response
}

/**
 * A request that arrives once the process is stopping, on a connection opened before (the listener takes no
 * new ones), is refused with the 503 envelope rather than started: the drain waits only for the requests
 * already in flight (docs/deployment.md "Shutdown"). The probes still answer (`/ready` says 503 itself), so
 * a load balancer learns why.
 */
const refuseWhileDraining = (stopping: boolean, method: string, path: string) =>
  stopping && !(method === "GET" && (path === "/ready" || path === "/health"))
    ? Effect.fail(
        ServiceUnavailable.of({
          message: "The service is stopping; retry on another instance",
          code: "shutting_down",
          retryAfter: 1
        })
      )
    : Effect.void

/** The interfaces' paths, whose answers are account data (not the pages, assets or /docs). */
const isApiPath = (path: string) => path.startsWith("/api/") || path.startsWith("/public/v1/")

/**
 * The outermost middleware: request id, error envelope for every failure (decode errors, malformed
 * JSON, unknown routes, wrong methods, defects), and the HTTP metrics by route template.
 */
export const EnvelopeMiddleware = HttpApiBuilder.middleware(
  Effect.gen(function* () {
    const metrics = yield* Metrics
    const draining = yield* Draining
    const requestLog = yield* RequestLog
    return (app) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const requestId = requestIdOf(request.headers["x-request-id"])
        const path = Option.getOrElse(
          Option.map(HttpServerRequest.toURL(request), (url) => url.pathname),
          () => request.url
        )
        const started = performance.now()
        // The request's trace id (when tracing is on): in every log line of the request and in a 500's body.
        const traceId = Option.getOrUndefined(Option.map(yield* currentExportedSpan, (s) => s.traceId))
        const note: RequestNote["Type"] = { key: undefined }
        let body: HttpServerRequest.HttpServerRequest | undefined
        const rendered = yield* refuseWhileDraining(draining.stopping(), request.method, path).pipe(
          Effect.zipRight(acceptUrl(request.url, routes.template(request.method, path))),
          Effect.zipRight(acceptQuery(routes.route(request.method, path), request.method, request.url)),
          Effect.zipRight(acceptBody(request)),
          Effect.flatMap((accepted) => {
            if (accepted !== request) body = accepted
            // The request as accepted (its body read once), the note and the body limit, in one change
            // of the fiber's context: each `provideService` is a copy of it and a `locally` of its own
            // (docs/performance.md "The runtime's steps"). acceptBody keeps its own limit.
            return Effect.provide(
              app,
              Context.make(RequestNote, note).pipe(
                Context.add(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(MAX_BODY_BYTES))),
                Context.add(HttpServerRequest.HttpServerRequest, accepted)
              )
            )
          }),
          Effect.catchAllCause((cause) => {
            const { defect, error } = toHttpError(cause, path, request.method)
            // Interrupted only: the client went away or the server is stopping; nothing went wrong.
            const log = Cause.isInterruptedOnly(cause)
              ? Effect.logDebug("request interrupted")
              : defect
                ? Effect.logError("request failed", cause)
                : Effect.void
            const body =
              error instanceof InternalServerError && traceId !== undefined ? withTrace(error, traceId) : error
            // A cut or mistyped checkout link in a buyer's browser: the pt-BR page, not the JSON envelope.
            if (error instanceof NotFound && path.startsWith("/checkout/") && prefersHtml(request.headers["accept"]))
              return Effect.as(log, invalidLinkResponse())
            return Effect.as(log, respond(body, path))
          }),
          Effect.annotateLogs(traceId === undefined ? { requestId } : { requestId, traceId })
        )
        // A body refused by a check that depends on today (a card's expiry month ended since, a birthday) under a
        // key whose first request completed: the replay answers what that request answered (idempotency.ts).
        const replay = rendered.status === 400 ? yield* replayedAhead : undefined
        if (replay !== undefined) metrics.idempotency.inc({ outcome: "replayed" })
        const response = replay ?? rendered
        const route = routes.template(request.method, path) ?? "unmatched"
        const status = String(response.status)
        // The access log at debug level; credentials and card numbers in the URL never reach it (redact.ts). Built only
        // when debug lines are kept: at the default level its annotations were work for nothing.
        if (LogLevel.lessThanEqual(yield* FiberRef.get(FiberRef.currentMinimumLogLevel), LogLevel.Debug)) {
          yield* Effect.logDebug("request").pipe(
            Effect.annotateLogs({
              requestId,
              ...(traceId === undefined ? {} : { traceId }),
              method: request.method,
              url: redactUrl(request.url),
              status: response.status,
              ms: Math.round(performance.now() - started)
            })
          )
        }
        // The request log (docs/webhooks.md "Request log"): requests an API key made, queued for a batched
        // write (RequestLogLive), the body redacted here so no card number or secret waits in memory.
        if (note.key !== undefined) {
          const text = body === undefined ? null : yield* Effect.orElseSucceed(body.text, () => null)
          yield* requestLog.record({
            accountId: note.key.accountId,
            keyId: note.key.keyId,
            method: request.method,
            path: redactUrl(request.url),
            status: response.status,
            latencyMs: Math.round(performance.now() - started),
            requestId,
            // A key holding a card number or a secret is refused (idempotency.ts) and not kept either.
            idempotencyKey: idempotencyKeyOf(request.headers["idempotency-key"]),
            body: text === null || text === "" ? null : redactBody(text),
            at: new Date()
          })
        }
        const method = METHODS.has(request.method) ? request.method : "other"
        metrics.httpRequests.inc({ route, method, status })
        metrics.httpDuration.observe({ route, method }, (performance.now() - started) / 1000)
        const challenged =
          response.status === 401 && response.headers["www-authenticate"] === undefined
            ? HttpServerResponse.setHeader(response, "www-authenticate", challengeFor(path))
            : response
        const identified = HttpServerResponse.setHeader(challenged, "x-request-id", requestId)
        // An API answer is one account's data at one moment: no cache (a browser's, a proxy's) keeps it, unless
        // its route says otherwise (docs/api.md "Caching").
        const answered =
          identified.headers["cache-control"] === undefined && isApiPath(path)
            ? HttpServerResponse.setHeader(identified, "cache-control", "no-store")
            : identified
        // Stopping: the connection is not kept for another request (docs/deployment.md "Shutdown").
        return draining.stopping() ? HttpServerResponse.setHeader(answered, "connection", "close") : answered
      }).pipe(draining.track)
  })
)
