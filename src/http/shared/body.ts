import { Headers, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"
import { bodyProblem } from "./bodyGuard.ts"
import { urlTextProblem } from "./text.ts"
import { BadRequest, type HttpError, PayloadTooLarge, UnsupportedMediaType } from "./errors.ts"

/** CONTRACT §4: bodies up to 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024
// What an over-size request may still send after the limit before its connection is closed: enough for
// the client to read the 413 instead of a reset, bounded so that nobody can stream into the server.
const DRAIN_BYTES = 16 * MAX_BODY_BYTES
const DRAIN_MS = 5_000

/** `application/json` and every `application/…+json` (merge-patch, problem, vnd.api) are JSON. */
export const isJsonMediaType = (contentType: string | undefined) => {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type)
}

const hasBody = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  return length !== undefined ? length.trim() !== "0" : request.headers["transfer-encoding"] !== undefined
}

/**
 * Reads the body up to MAX_BODY_BYTES. Past that it keeps reading and discarding (up to a bound in
 * bytes and time) without buffering, so that the client, still sending, can read the 413 instead of a
 * reset; a stream that never ends is cut by HTTP_REQUEST_TIMEOUT_MS.
 */
const readBounded = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.async<Buffer | "too_large">((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let size = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (result: Buffer | "too_large") => {
      if (timer !== undefined) clearTimeout(timer)
      incoming.off("data", onData).off("end", onEnd).off("error", onError).off("close", onEnd)
      resume(Effect.succeed(result))
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
      else {
        chunks.length = 0
        timer ??= setTimeout(() => finish("too_large"), DRAIN_MS)
        if (size > MAX_BODY_BYTES + DRAIN_BYTES) finish("too_large")
      }
    }
    const onEnd = () => finish(size > MAX_BODY_BYTES ? "too_large" : Buffer.concat(chunks))
    const onError = () => finish(size > MAX_BODY_BYTES ? "too_large" : Buffer.concat(chunks))
    if (incoming.readableEnded) return resume(Effect.succeed(Buffer.alloc(0)))
    incoming.on("data", onData).on("end", onEnd).on("error", onError).on("close", onEnd)
    incoming.resume()
  })

const tooLarge = Effect.fail(
  PayloadTooLarge.of({ message: "request body is larger than 1 MiB", code: "payload_too_large" })
)

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * Every body gets a deliberate answer before any route sees it (docs/operations.md): over 1 MiB → 413
 * (the rest is read and discarded up to a bound, then the connection closes); a media type other than
 * JSON → 415; bytes that are not UTF-8 → 400; JSON too deep, or holding NUL or a lone surrogate
 * (text.ts) → 400 naming the field. What passes is handed on read once, as `application/json`, so
 * `+json` types decode like JSON.
 */
export const acceptBody = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<HttpServerRequest.HttpServerRequest, HttpError> =>
  Effect.gen(function* () {
    if (request.method === "GET" || request.method === "HEAD" || !hasBody(request)) return request
    const declared = Number(request.headers["content-length"] ?? "0")
    // Answered before the body is read: Node discards the rest of it after the response (bounded by
    // HTTP_REQUEST_TIMEOUT_MS), so the client reads a 413, not a reset.
    if (declared > MAX_BODY_BYTES) return yield* tooLarge
    if (!isJsonMediaType(request.headers["content-type"])) {
      return yield* Effect.fail(
        UnsupportedMediaType.of({
          message: "request bodies must be Content-Type: application/json",
          code: "unsupported_media_type"
        })
      )
    }
    const bytes = yield* readBounded(request)
    if (bytes === "too_large") return yield* tooLarge
    let text: string
    try {
      text = fatalUtf8.decode(bytes)
    } catch {
      return yield* Effect.fail(
        BadRequest.of({
          message: "request body is not valid UTF-8",
          code: "malformed_json",
          errors: [{ field: "body", message: "request body is not valid UTF-8" }]
        })
      )
    }
    const problem = bodyProblem(text)
    if (problem !== undefined) {
      return yield* Effect.fail(
        BadRequest.of({ message: problem.message, code: "validation_failed", errors: [problem] })
      )
    }
    const headers = Headers.set(request.headers, "content-type", "application/json")
    const encoded = new TextEncoder().encode(text)
    const accepted = Object.create(request, {
      headers: { get: () => headers },
      text: { get: () => Effect.succeed(text) },
      arrayBuffer: { get: () => Effect.succeed(encoded.buffer) }
    }) as HttpServerRequest.HttpServerRequest
    // Parsed once, however many read it: the idempotency fingerprint, the order a charge pays
    // (paysOrder.ts) and the route's payload each ask for `json`.
    const json = Effect.runSync(Effect.cached(accepted.json))
    return Object.defineProperty(accepted, "json", { get: () => json })
  })

/**
 * Text in the URL follows the body's rule (text.ts): a path segment or query parameter whose
 * percent-encoded bytes are not UTF-8, or that holds NUL, is a 400 naming it (the route's parameter
 * name where `template` is known), before any route, or the database, sees it.
 */
export const acceptUrl = (url: string, template: string | undefined): Effect.Effect<void, HttpError> => {
  const problem = urlTextProblem(url, template)
  if (problem === undefined) return Effect.void
  return Effect.fail(BadRequest.of({ message: problem.message, code: "validation_failed", errors: [problem] }))
}
