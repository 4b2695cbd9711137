import { randomUUID } from "node:crypto"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Metrics } from "../../ports/Metrics.ts"
import { GatewayApi } from "../Api.ts"
import { routeTable } from "./routes.ts"

const routes = routeTable(GatewayApi)

/** How long a refused connection may keep sending (read and discarded) before it is closed. */
const LINGER_MS = 2_000

interface Refusal {
  readonly status: number
  readonly phrase: string
  readonly code: string
  readonly reason: string
  readonly message: string
}

const refusal = (status: number, phrase: string, code: string, reason: string, message: string): Refusal => ({
  status,
  phrase,
  code,
  reason,
  message
})

/**
 * What Node's parser error means, in the envelope's words (docs/input.md "Framing"). The `reason` is the
 * metric's label: a short, bounded set, never the raw error text.
 */
const classify = (error: NodeJS.ErrnoException): Refusal | undefined => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return refusal(
        431,
        "Request Header Fields Too Large",
        "headers_too_large",
        "header_overflow",
        "the request's headers are larger than the server accepts (16 KiB)"
      )
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
    case "HPE_INVALID_CONTENT_LENGTH":
      return refusal(
        400,
        "Bad Request",
        "malformed_request",
        "content_length",
        "Content-Length is invalid, repeated, or sent with Transfer-Encoding"
      )
    case "HPE_INVALID_CHUNK_SIZE":
      return refusal(400, "Bad Request", "malformed_request", "chunk_size", "a chunk size of the body is invalid")
    case "HPE_INVALID_TRANSFER_ENCODING":
      return refusal(400, "Bad Request", "malformed_request", "transfer_encoding", "Transfer-Encoding is invalid")
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return refusal(
        408,
        "Request Timeout",
        "request_timeout",
        "timeout",
        "the request was not received in time; send it again"
      )
    case "ECONNRESET":
    case "EPIPE":
      return undefined // the client is gone: nobody to answer
    default:
      return refusal(400, "Bad Request", "malformed_request", "malformed", "the request is not valid HTTP/1.1")
  }
}

/** The path of the refused request, when the parser got that far: it picks the interface's error body. */
const pathOf = (socket: Socket, rawPacket: unknown) => {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse & { req?: IncomingMessage } })._httpMessage
  if (inFlight?.req?.url !== undefined) return inFlight.req.url.split("?")[0]
  const line = Buffer.isBuffer(rawPacket) ? /^[A-Z]+ (\/[^ ?]*)/.exec(rawPacket.toString("latin1", 0, 2048)) : null
  return line?.[1]
}

const envelope = (refused: Refusal, path: string | undefined) => {
  const body = { statusCode: refused.status, error: refused.phrase, message: refused.message, code: refused.code }
  return JSON.stringify(
    path !== undefined && routes.errorBody(path) === "successFlag" ? { success: false, ...body } : body
  )
}

const answered = new WeakSet<Socket>()

/**
 * Requests Node's HTTP parser refuses (two Content-Lengths, a bad chunk size, headers over 16 KiB, a
 * request too slow) and `Expect` values other than `100-continue` never reach the Effect app; Node
 * would answer them with a bare status and no body. These listeners answer with the error envelope of
 * CONTRACT §4 and an `X-Request-Id`, whenever no byte of a response has gone out on the socket yet,
 * and count each one in `http_client_errors_total{reason}`.
 */
export const installFramingAnswers = (server: Server, metrics: Metrics["Type"]) => {
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) => {
    // After the first answer the parser stays in error, and a late write of the in-flight response
    // fails too: one answer and one count per connection.
    if (answered.has(socket)) return void socket.destroy()
    answered.add(socket)
    const refused = classify(error)
    metrics.httpClientErrors.inc({ reason: refused?.reason ?? "connection_reset" })
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage
    if (refused === undefined || !socket.writable || inFlight?.headersSent === true) return void socket.destroy()
    const body = envelope(refused, pathOf(socket, error.rawPacket))
    socket.write(
      `HTTP/1.1 ${refused.status} ${refused.phrase}\r\n` +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\n` +
        "Connection: close\r\n\r\n" +
        body
    )
    // Closing at once, with the client's bytes still unread, would send a reset that can overtake the
    // answer: read and discard what the client still sends, for a bounded time, then close.
    socket.removeAllListeners("data")
    socket.on("data", () => {})
    socket.end()
    setTimeout(() => socket.destroy(), LINGER_MS).unref()
  })

  // `Expect: 100-continue` keeps Node's behaviour (100, then the request); any other expectation is a
  // 417 in the envelope rather than Node's empty one.
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    metrics.httpClientErrors.inc({ reason: "expectation" })
    const expectation = String(request.headers.expect ?? "").slice(0, 100)
    const refused = refusal(
      417,
      "Expectation Failed",
      "expectation_failed",
      "expectation",
      `Expect: ${expectation} is not supported; only 100-continue is`
    )
    const body = envelope(refused, request.url?.split("?")[0])
    response.writeHead(417, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "x-request-id": randomUUID(),
      connection: "close"
    })
    response.end(body)
  })
}
