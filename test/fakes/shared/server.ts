import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"

/**
 * The plumbing every provider fake shares: a loopback HTTP listener that can be taken down and brought
 * back on the same port (a "connection refused" for the adapter), JSON bodies, and the faults a test
 * schedules per operation (docs/providers.md "What each fake does not model").
 */

export type Fault =
  /** Accept the request, never answer and never act on it (the provider timed out before accepting). */
  | { readonly kind: "timeout" }
  /** Answer 5xx before acting on the request. */
  | { readonly kind: "error"; readonly status?: number }
  /**
   * Act on the request (commit), then answer 5xx (502 unless given): a gateway in front of the provider
   * failing after the provider acted. Neither Cielo nor e.Rede documents a 5xx as "not processed".
   */
  | { readonly kind: "error-after"; readonly status?: number }
  /** Act on the request (commit), then drop the connection without an answer. */
  | { readonly kind: "drop" }
  /** Act on the request, answer after `ms`. */
  | { readonly kind: "slow"; readonly ms: number }

export interface FaultQueue<Op extends string> {
  /** The next `times` calls of `op` suffer `fault`. */
  readonly inject: (op: Op, fault: Fault, times?: number) => void
  readonly take: (op: Op) => Fault | undefined
  readonly clear: () => void
}

export const faultQueue = <Op extends string>(): FaultQueue<Op> => {
  const queued = new Map<Op, Array<Fault>>()
  return {
    inject: (op, fault, times = 1) => {
      const list = queued.get(op) ?? []
      for (let i = 0; i < times; i++) list.push(fault)
      queued.set(op, list)
    },
    take: (op) => queued.get(op)?.shift(),
    clear: () => queued.clear()
  }
}

export const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

export const sendJson = (res: ServerResponse, status: number, body?: unknown) => {
  const text = body === undefined ? "" : JSON.stringify(body)
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text)
  })
  res.end(text)
}

/**
 * A proxy's hand-over: the request (its `body` already read) sent on to `upstream` as it came, and its answer
 * given back, with the status `status` makes of it — for a test that changes one kind of a fake's answers.
 */
export const relay = async (
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
  upstream: string,
  status: (upstream: number) => number = (s) => s
) => {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === "string" && !["host", "content-length", "connection"].includes(k)) headers[k] = v
  }
  const answer = await fetch(`${upstream}${req.url}`, {
    method: req.method ?? "GET",
    headers,
    ...(body.length > 0 ? { body } : {})
  })
  const text = await answer.text()
  res.writeHead(status(answer.status), {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text)
  })
  res.end(text)
}

/** The metrics an acquirer adapter records, recording nothing (tests that build adapters by hand). */
export const noMetrics = {
  acquirerAttempts: { inc: () => {} },
  acquirerAttemptDuration: { observe: () => {} },
  acquirerCircuitOpen: { set: () => {} }
}

export interface Listener {
  readonly url: () => string
  readonly port: () => number
  /** Close the port: the next connection is refused. */
  readonly down: () => Promise<void>
  /** Listen again on the same port. */
  readonly up: () => Promise<void>
  readonly close: () => Promise<void>
  /** How many TCP connections reached this listener (a test asserts "never called"). */
  readonly connections: () => number
}

export const listen = async (
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  port = 0
): Promise<Listener> => {
  let server: Server | undefined
  let bound = port
  let connections = 0
  const sockets = new Set<Socket>()
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((req, res) => {
        handler(req, res).catch((error: unknown) => {
          if (!res.headersSent) sendJson(res, 500, [{ Code: 0, Message: String(error) }])
        })
      })
      s.keepAliveTimeout = 1_000
      s.on("connection", (socket) => {
        connections++
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
      })
      s.once("error", reject)
      s.listen(bound, "127.0.0.1", () => {
        bound = (s.address() as AddressInfo).port
        server = s
        resolve()
      })
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server
      server = undefined
      if (s === undefined) return resolve()
      for (const socket of sockets) socket.destroy()
      s.close(() => resolve())
    })
  await start()
  return {
    url: () => `http://127.0.0.1:${bound}`,
    port: () => bound,
    down: stop,
    up: start,
    close: stop,
    connections: () => connections
  }
}

/**
 * Applies a fault around `act` (which commits and returns the answer): timeout and error happen before
 * acting, error-after, drop and slow after.
 */
export const withFault = async (
  fault: Fault | undefined,
  res: ServerResponse,
  act: () => { readonly status: number; readonly body?: unknown }
) => {
  if (fault?.kind === "timeout") {
    // Hold the connection until the client gives up; nothing is recorded.
    await new Promise<void>((resolve) => res.on("close", () => resolve()))
    return
  }
  if (fault?.kind === "error") return sendJson(res, fault.status ?? 500)
  const answer = act()
  if (fault?.kind === "error-after") return sendJson(res, fault.status ?? 502)
  if (fault?.kind === "drop") {
    res.socket?.destroy()
    return
  }
  if (fault?.kind === "slow") await new Promise((resolve) => setTimeout(resolve, fault.ms))
  sendJson(res, answer.status, answer.body)
}

/** The brand-independent Luhn check the providers run before anything else. */
export const luhn = (pan: string) => {
  if (!/^\d{12,19}$/.test(pan)) return false
  let sum = 0
  for (let i = 0; i < pan.length; i++) {
    let d = Number(pan[pan.length - 1 - i])
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** A card's expiry `month/year` (four-digit year) is before the current month. */
export const expired = (month: number, year: number, now = new Date()) =>
  year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)
