import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createSecureContext } from "node:tls"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Webhook } from "standardwebhooks"
import { generateWebhookSecret } from "../crypto/webhook-signature.ts"
import type { WebhookRequest } from "../../ports/WebhookSender.ts"
import type { Resolver } from "./url-guard.ts"
import { makeWebhookSender, type WebhookSenderOptions } from "./WebhookSenderLive.ts"

// Real sockets and real time: every test runs under the live clock.

interface Received {
  readonly method: string | undefined
  readonly url: string | undefined
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

interface TestServer {
  readonly port: number
  readonly received: Array<Received>
  readonly stats: { connections: number; socketsClosed: number }
}

/** A receiver on 127.0.0.1:<random port>, closed (with its sockets) when the test's scope ends. */
const serve = (
  respond: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
  server: http.Server | https.Server = http.createServer()
) =>
  Effect.acquireRelease(
    Effect.async<TestServer>((resume) => {
      const received: Array<Received> = []
      const stats = { connections: 0, socketsClosed: 0 }
      const onSocket = (socket: import("node:net").Socket) => {
        stats.connections++
        socket.on("close", () => stats.socketsClosed++)
      }
      server.on(server instanceof https.Server ? "secureConnection" : "connection", onSocket)
      server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          received.push({ method: req.method, url: req.url, headers: req.headers, body })
          respond(req, res, body)
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ port: (server.address() as AddressInfo).port, received, stats }))
      )
    }),
    () =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const freePort = Effect.async<number>((resume) => {
  const s = http.createServer().listen(0, "127.0.0.1", () => {
    const { port } = s.address() as AddressInfo
    s.close(() => resume(Effect.succeed(port)))
  })
})

const secret = generateWebhookSecret()
const body = JSON.stringify({ type: "pix.received", data: { id: "pix_1", amountCents: 12345, payer: "Açaí Ltda" } })
const request = (url: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url,
  deliveryId: "msg_2f1c",
  timestamp: Math.floor(Date.now() / 1000),
  body,
  secret,
  ...overrides
})
const sender = (options: Partial<WebhookSenderOptions> = {}) =>
  makeWebhookSender({ timeoutMs: 2_000, allowPrivate: true, ...options })

const timedWall = <A>(self: Effect.Effect<A>) =>
  Effect.gen(function* () {
    const start = Date.now()
    const value = yield* self
    return [value, Date.now() - start] as const
  })

const staticResolver =
  (address: string, calls = { n: 0 }): Resolver =>
  async () => {
    calls.n++
    return [{ address, family: 4 }]
  }

// Generous for a loaded 2-core CI box, yet far below anything that reads 50 MB or waits forever.
const SLACK_MS = 1_200

describe("WebhookSenderLive", () => {
  it.scopedLive("200 → Delivered, with Standard Webhooks headers the receiver can verify", () =>
    Effect.gen(function* () {
      const server = yield* serve((_req, res) => res.end("ok"))
      const outcome = yield* sender({ userAgent: "test-agent/1" }).send(
        request(`http://127.0.0.1:${server.port}/hook?tenant=7`)
      )
      expect(outcome).toMatchObject({ _tag: "Delivered", httpStatus: 200 })
      expect(outcome.durationMs).toBeGreaterThanOrEqual(0)
      expect(server.received).toHaveLength(1)
      const seen = server.received[0]!
      expect(seen).toMatchObject({ method: "POST", url: "/hook?tenant=7", body })
      expect(seen.headers).toMatchObject({
        "content-type": "application/json",
        "user-agent": "test-agent/1",
        "webhook-id": "msg_2f1c",
        "content-length": String(Buffer.byteLength(body))
      })
      const verified = new Webhook(secret).verify(seen.body, {
        "webhook-id": String(seen.headers["webhook-id"]),
        "webhook-timestamp": String(seen.headers["webhook-timestamp"]),
        "webhook-signature": String(seen.headers["webhook-signature"])
      })
      expect(verified).toEqual(JSON.parse(body))
      expect(() =>
        new Webhook(generateWebhookSecret()).verify(seen.body, seen.headers as Record<string, string>)
      ).toThrow()
    })
  )

  it.scopedLive("non-200 answers → Rejected with the status (201 and 204 are not success)", () =>
    Effect.gen(function* () {
      for (const status of [500, 404, 201, 204]) {
        const server = yield* serve((_req, res) => {
          res.statusCode = status
          res.end(status === 204 ? undefined : "nope")
        })
        const outcome = yield* sender().send(request(`http://127.0.0.1:${server.port}/`))
        expect(outcome).toMatchObject({ _tag: "Rejected", httpStatus: status })
      }
    })
  )

  it.scopedLive("302 → Rejected 302 and the redirect target never hears from us", () =>
    Effect.gen(function* () {
      const target = yield* serve((_req, res) => res.end("ok"))
      const redirector = yield* serve((_req, res) => {
        res.writeHead(302, { location: `http://127.0.0.1:${target.port}/steal` })
        res.end()
      })
      const outcome = yield* sender().send(request(`http://127.0.0.1:${redirector.port}/`))
      expect(outcome).toMatchObject({ _tag: "Rejected", httpStatus: 302 })
      yield* Effect.sleep("200 millis")
      expect(target.stats.connections).toBe(0)
    })
  )

  it.scopedLive(
    "a receiver that never answers → Unreachable timeout, within the deadline",
    () =>
      Effect.gen(function* () {
        const server = yield* serve(() => {})
        const [outcome, wallMs] = yield* timedWall(
          sender({ timeoutMs: 300 }).send(request(`http://127.0.0.1:${server.port}/`))
        )
        expect(outcome).toMatchObject({ _tag: "Unreachable", reason: "timeout" })
        expect(outcome.durationMs).toBeGreaterThanOrEqual(280)
        expect(wallMs).toBeLessThan(300 + SLACK_MS)
        yield* Effect.sleep("100 millis")
        expect(server.stats.socketsClosed).toBe(1) // the socket was torn down, not leaked
      }),
    5_000
  )

  it.scopedLive(
    "drip-feeding a 200 body past the deadline → Unreachable timeout (one overall deadline)",
    () =>
      Effect.gen(function* () {
        const server = yield* serve((_req, res) => {
          res.writeHead(200, { "content-type": "text/plain" })
          res.flushHeaders()
          const timer = setInterval(() => res.write("x"), 100)
          res.on("close", () => clearInterval(timer))
        })
        const [outcome, wallMs] = yield* timedWall(
          sender({ timeoutMs: 300 }).send(request(`http://127.0.0.1:${server.port}/`))
        )
        expect(outcome).toMatchObject({ _tag: "Unreachable", reason: "timeout" })
        expect(outcome.durationMs).toBeGreaterThanOrEqual(280)
        expect(wallMs).toBeLessThan(300 + SLACK_MS)
      }),
    5_000
  )

  it.scopedLive("a 50 MB response body is cut at the 64 KiB cap: Delivered fast, body never fully read", () =>
    Effect.gen(function* () {
      const total = 50 * 1024 * 1024
      const progress = { sent: 0, closedEarly: false }
      const server = yield* serve((_req, res) => {
        res.writeHead(200, { "content-length": String(total) })
        const chunk = Buffer.alloc(64 * 1024, 0x61)
        // Honour backpressure so `sent` measures what the client actually pulled.
        const pump = () => {
          while (progress.sent < total && !res.destroyed) {
            progress.sent += chunk.length
            if (!res.write(chunk)) return void res.once("drain", pump)
          }
          res.end()
        }
        res.on("close", () => (progress.closedEarly = progress.sent < total))
        pump()
      })
      const heapBefore = process.memoryUsage().heapUsed
      const [outcome, wallMs] = yield* timedWall(
        sender({ timeoutMs: 10_000 }).send(request(`http://127.0.0.1:${server.port}/`))
      )
      expect(outcome).toMatchObject({ _tag: "Delivered", httpStatus: 200 })
      expect(wallMs).toBeLessThan(SLACK_MS)
      yield* Effect.sleep("200 millis")
      expect(progress.closedEarly).toBe(true)
      // Kernel socket buffers may hold a few MB; reading the whole body would reach 50 MB.
      expect(progress.sent).toBeLessThan(20 * 1024 * 1024)
      expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(30 * 1024 * 1024)
    })
  )

  it.scopedLive("allowPrivate: false refuses local and metadata URLs without connecting", () =>
    Effect.gen(function* () {
      const server = yield* serve((_req, res) => res.end("ok"))
      const strict = sender({ allowPrivate: false })
      const cases = [
        [`http://127.0.0.1:${server.port}/`, "url must use https"],
        [`https://127.0.0.1:${server.port}/`, "url resolves to a private or reserved address (127.0.0.1)"],
        [`https://localhost:${server.port}/`, "url resolves to a private or reserved address"],
        [
          "https://169.254.169.254/latest/meta-data/",
          "url resolves to a private or reserved address (169.254.169.254)"
        ],
        [`https://[::ffff:127.0.0.1]:${server.port}/`, "url resolves to a private or reserved address (::ffff:7f00:1)"]
      ] as const
      for (const [url, reason] of cases) {
        const [outcome, wallMs] = yield* timedWall(strict.send(request(url)))
        expect(outcome).toMatchObject({ _tag: "Unreachable" })
        expect(outcome._tag === "Unreachable" && outcome.reason).toContain(reason)
        expect(wallMs).toBeLessThan(SLACK_MS)
      }
      expect(server.stats.connections).toBe(0)
    })
  )

  it.scopedLive("DNS rebinding: a host that now resolves privately is refused at delivery time", () =>
    Effect.gen(function* () {
      const server = yield* serve((_req, res) => res.end("ok"))
      const outcome = yield* sender({ allowPrivate: false, resolver: staticResolver("127.0.0.1") }).send(
        request(`https://hooks.merchant.example:${server.port}/`)
      )
      expect(outcome).toMatchObject({
        _tag: "Unreachable",
        reason: "url resolves to a private or reserved address (127.0.0.1)"
      })
      expect(server.stats.connections).toBe(0)
    })
  )

  it.scopedLive("connects to the vetted address (one lookup) while sending the URL's Host header", () =>
    Effect.gen(function* () {
      const server = yield* serve((_req, res) => res.end("ok"))
      const calls = { n: 0 }
      const outcome = yield* sender({ resolver: staticResolver("127.0.0.1", calls) }).send(
        request(`http://receiver.invalid:${server.port}/h`)
      )
      expect(outcome._tag).toBe("Delivered")
      expect(calls.n).toBe(1)
      expect(server.received[0]?.headers.host).toBe(`receiver.invalid:${server.port}`)
    })
  )

  it.scopedLive("connection refused → Unreachable", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const outcome = yield* sender().send(request(`http://127.0.0.1:${port}/`))
      expect(outcome).toMatchObject({ _tag: "Unreachable", reason: "connection failed (ECONNREFUSED)" })
    })
  )

  it.scopedLive("interrupting the fiber aborts the socket", () =>
    Effect.gen(function* () {
      const server = yield* serve(() => {})
      const fiber = yield* Effect.fork(sender({ timeoutMs: 30_000 }).send(request(`http://127.0.0.1:${server.port}/`)))
      while (server.received.length === 0) yield* Effect.sleep("10 millis")
      yield* Fiber.interrupt(fiber)
      yield* Effect.sleep("200 millis")
      expect(server.stats.socketsClosed).toBe(1)
    })
  )

  it.scopedLive("a corrupt secret is an outcome, not a crash", () =>
    Effect.gen(function* () {
      const outcome = yield* sender().send(request("http://127.0.0.1:9/", { secret: "whsec_" }))
      expect(outcome).toMatchObject({ _tag: "Unreachable" })
      expect(outcome._tag === "Unreachable" && outcome.reason).toMatch(/^cannot sign webhook/)
    })
  )

  const hasOpenssl = spawnSync("openssl", ["version"]).status === 0
  it.scopedLive.skipIf(!hasOpenssl)("https: SNI is the URL host and certificates are verified", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "webhook-tls-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=receiver.test",
          "-addext",
          "subjectAltName=DNS:receiver.test",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem")
        ],
        { stdio: "ignore" }
      )
      const tls = { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }
      const sniSeen: Array<string> = []
      const server = yield* serve(
        (_req, res) => res.end("ok"),
        https.createServer({
          ...tls,
          SNICallback: (name, cb) => {
            sniSeen.push(name)
            cb(null, createSecureContext(tls))
          }
        })
      )
      const outcome = yield* sender({ resolver: staticResolver("127.0.0.1") }).send(
        request(`https://receiver.test:${server.port}/`)
      )
      // Self-signed: a verifying client must refuse it, after presenting the right SNI.
      expect(outcome).toMatchObject({ _tag: "Unreachable", reason: "connection failed (DEPTH_ZERO_SELF_SIGNED_CERT)" })
      expect(sniSeen).toEqual(["receiver.test"])
      expect(server.received).toHaveLength(0)
    })
  )
})
