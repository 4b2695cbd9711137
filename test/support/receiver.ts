import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { Socket } from "node:net"

/**
 * A real local webhook receiver for the end-to-end tests: node:http on 127.0.0.1, port 0. It records
 * every request (method, path, headers, the raw body, arrival time) and every TCP connection, and
 * answers each request as programmed: a status (optionally after a delay), a redirect, never, or a
 * 200 whose body drips in slowly.
 */

export type Reply =
  | {
      readonly status: number
      readonly delayMs?: number
      readonly headers?: Readonly<Record<string, string>>
      readonly body?: string
    }
  | { readonly redirect: string; readonly status?: 301 | 302 | 303 | 307 | 308 }
  /** Never answers; the socket stays open until the client gives up (or the receiver closes). */
  | { readonly hang: true }
  /** Sends the status line and headers at once, then `chunks` chunks `intervalMs` apart, then ends. */
  | { readonly drip: { readonly status?: number; readonly chunks: number; readonly intervalMs: number } }

export interface ReceivedRequest {
  /** 0-based order of arrival. */
  readonly index: number
  readonly method: string
  readonly path: string
  /** Lower-cased header names (Node's), repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The body exactly as received (what a signature covers). */
  readonly body: string
  /** Date.now() when the whole body had arrived. */
  readonly arrivedAt: number
  /** The reply chosen for it. */
  readonly reply: Reply
  /** Status sent, once the status line went out (undefined: never answered). */
  answeredStatus?: number
  /** Date.now() when the response finished or the connection closed, whichever first. */
  closedAt?: number
  /** True when the response was fully sent before the connection closed. */
  completed: boolean
}

export type Responder = (request: Omit<ReceivedRequest, "reply" | "answeredStatus" | "closedAt" | "completed">) => Reply

export interface Receiver {
  /** http://127.0.0.1:<port>/hook */
  readonly url: string
  readonly port: number
  /** Every request so far, in order of arrival. */
  readonly requests: ReadonlyArray<ReceivedRequest>
  /** TCP connections accepted so far (also counts connections that never sent a valid HTTP request). */
  readonly connections: () => number
  /** Replies used in order for the next requests; once used up, the responder (default 200) answers. */
  readonly script: (...replies: ReadonlyArray<Reply>) => void
  /** The reply for every request once the script is used up. */
  readonly respond: (responder: Responder | Reply) => void
  /** Resolves with the requests once `predicate` holds for the list (rejects after `timeoutMs`). */
  readonly waitFor: (
    predicate: (requests: ReadonlyArray<ReceivedRequest>) => boolean,
    timeoutMs?: number,
    what?: string
  ) => Promise<ReadonlyArray<ReceivedRequest>>
  /** Requests whose JSON body has this `event` (and `data.transactionId`, when given). */
  readonly eventsFor: (event: string, transactionId?: string) => ReadonlyArray<ReceivedRequest>
  readonly close: () => Promise<void>
}

const ok: Reply = { status: 200, body: "ok" }

const describeRequest = (r: ReceivedRequest) =>
  `#${r.index} ${r.headers["webhook-id"] ?? "-"} ${jsonBody(r)?.event ?? "?"} -> ${r.answeredStatus ?? "none"}`

/** The parsed JSON body, or undefined. */
export const jsonBody = (request: { readonly body: string }): any => {
  try {
    return JSON.parse(request.body)
  } catch {
    return undefined
  }
}

export const startReceiver = async (path = "/hook"): Promise<Receiver> => {
  const requests: ReceivedRequest[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  let connectionCount = 0
  let scripted: Reply[] = []
  let responder: Responder = () => ok
  const waiters = new Set<() => void>()
  const notify = () => {
    for (const w of [...waiters]) w()
  }
  const later = (ms: number, f: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t)
      f()
    }, ms)
    timers.add(t)
  }

  const answer = (record: ReceivedRequest, res: ServerResponse) => {
    const reply = record.reply
    const send = (status: number, headers: Record<string, string>, body: string) => {
      if (res.destroyed) return
      record.answeredStatus = status
      res.writeHead(status, headers)
      res.end(body)
    }
    if ("hang" in reply) return
    if ("redirect" in reply) return send(reply.status ?? 302, { location: reply.redirect }, "")
    if ("drip" in reply) {
      const { chunks, intervalMs, status = 200 } = reply.drip
      record.answeredStatus = status
      res.writeHead(status, { "content-type": "text/plain" })
      let sent = 0
      const tick = () => {
        if (res.destroyed) return
        sent += 1
        if (sent >= chunks) return void res.end("z")
        res.write("z")
        later(intervalMs, tick)
      }
      return later(intervalMs, tick)
    }
    const { body = "", delayMs = 0, headers = {}, status } = reply
    if (delayMs > 0) later(delayMs, () => send(status, { "content-type": "text/plain", ...headers }, body))
    else send(status, { "content-type": "text/plain", ...headers }, body)
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
      }
      const base = {
        index: requests.length,
        method: req.method ?? "",
        path: req.url ?? "",
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
        arrivedAt: Date.now()
      }
      const reply = scripted.shift() ?? responder(base)
      const record: ReceivedRequest = { ...base, reply, completed: false }
      requests.push(record)
      res.on("finish", () => {
        record.completed = true
      })
      res.on("close", () => {
        record.closedAt ??= Date.now()
        notify()
      })
      answer(record, res)
      notify()
    })
  })
  server.on("connection", (socket: Socket) => {
    connectionCount += 1
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  // A TLS client hello or other garbage: drop it (the connection is still counted).
  server.on("clientError", (_error, socket: Socket) => socket.destroy())

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address !== "object") throw new Error("receiver has no port")
  const port = address.port

  const waitFor: Receiver["waitFor"] = (predicate, timeoutMs = 15_000, what = "receiver condition") =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (predicate(requests)) {
          cleanup()
          resolve(requests)
        }
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(
          new Error(
            `${what} not met within ${timeoutMs} ms; ${requests.length} request(s): ` +
              requests.map(describeRequest).join("; ")
          )
        )
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        waiters.delete(check)
      }
      waiters.add(check)
      check()
    })

  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    connections: () => connectionCount,
    script: (...replies) => {
      scripted = [...replies]
    },
    respond: (r) => {
      responder = typeof r === "function" ? r : () => r
    },
    waitFor,
    eventsFor: (event, transactionId) =>
      requests.filter((r) => {
        const body = jsonBody(r)
        return body?.event === event && (transactionId === undefined || body?.data?.transactionId === transactionId)
      }),
    close: async () => {
      for (const t of timers) clearTimeout(t)
      timers.clear()
      waiters.clear()
      server.closeAllConnections()
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
