import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 19 item 8: requests Node's HTTP parser refuses never reach a route. Each gets the error envelope
 * (JSON with a `code`) and an X-Request-Id rather than Node's bare status, and is counted in
 * `http_client_errors_total{reason}` (docs/input.md "Framing"). Raw sockets: no HTTP client would send these.
 */
let server: TestServer
let api: Client
beforeAll(async () => {
  server = await startTestServer()
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

interface RawReply {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/** Writes bytes on a fresh connection and reads until the server closes it (or 5 s pass). */
const exchange = (chunks: ReadonlyArray<string | Buffer>, port = Number(new URL(server.baseUrl).port)) =>
  new Promise<RawReply>((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port })
    const received: Array<Buffer> = []
    const timer = setTimeout(() => socket.destroy(), 5_000)
    socket.on("data", (chunk) => received.push(chunk))
    socket.on("error", () => {}) // a reset after the answer is fine: what was read is judged
    socket.on("close", () => {
      clearTimeout(timer)
      const text = Buffer.concat(received).toString("utf8")
      const [head = "", ...rest] = text.split("\r\n\r\n")
      const [statusLine = "", ...lines] = head.split("\r\n")
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0)
      if (status === 0) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`))
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()])
      )
      resolve({ status, headers, body: rest.join("\r\n\r\n") })
    })
    socket.on("connect", async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return
        socket.write(chunk)
        await new Promise((r) => setTimeout(r, 20))
      }
    })
  })

const counted = async () => {
  const text = await (await fetch(server.metricsUrl)).text()
  const counts: Record<string, number> = {}
  for (const m of text.matchAll(/^http_client_errors_total\{reason="([a-z_]+)"\} (\d+)$/gm))
    counts[m[1]!] = Number(m[2])
  return counts
}

const expectEnvelope = (reply: RawReply, status: number, code: string) => {
  expect(reply.status, reply.body).toBe(status)
  expect(reply.headers["content-type"]).toMatch(/^application\/json/)
  expect(reply.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
  const body = JSON.parse(reply.body)
  expect(body).toMatchObject({ statusCode: status, code })
  expect(typeof body.message).toBe("string")
  return body
}

describe("framing errors get the envelope, an X-Request-Id and a count", () => {
  it("two Content-Lengths → 400 malformed_request", async () => {
    const before = await counted()
    const reply = await exchange([
      "POST /api/customers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}"
    ])
    expectEnvelope(reply, 400, "malformed_request")
    expect((await counted()).content_length).toBe((before.content_length ?? 0) + 1)
  })

  it("a bad chunk size → 400 malformed_request, under /public/v1 with success: false", async () => {
    const before = await counted()
    const reply = await exchange([
      "POST /public/v1/transactions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        "Transfer-Encoding: chunked\r\n\r\n",
      "zz\r\n{}\r\n0\r\n\r\n"
    ])
    const body = expectEnvelope(reply, 400, "malformed_request")
    expect(body.success).toBe(false)
    expect((await counted()).chunk_size).toBe((before.chunk_size ?? 0) + 1)
  })

  it("70 KB of headers → 431 headers_too_large", async () => {
    const before = await counted()
    const reply = await exchange(["GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(70 * 1024) + "\r\n\r\n"])
    expectEnvelope(reply, 431, "headers_too_large")
    expect((await counted()).header_overflow).toBe((before.header_overflow ?? 0) + 1)
  })

  it("Expect: 200-ok → 417 expectation_failed; Expect: 100-continue still works", async () => {
    const before = await counted()
    const reply = await exchange(["GET /health HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n"])
    const body = expectEnvelope(reply, 417, "expectation_failed")
    expect(body.message).toContain("200-ok")
    expect((await counted()).expectation).toBe((before.expectation ?? 0) + 1)
    const fine = await exchange([
      "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n" +
        "Expect: 100-continue\r\nConnection: close\r\n\r\n",
      "{}"
    ])
    expect(fine.status).toBe(100)
    expect(fine.body).toMatch(/^HTTP\/1\.1 400 /) // then the login's own answer to its empty body
  })

  it("a request slower than the headers timeout → 408 request_timeout", async () => {
    const slow = await startTestServer({
      http: { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500, maxConnections: 100 }
    })
    try {
      const url = new URL(slow.baseUrl)
      const reply = await exchange(["GET /health HTTP/1.1\r\nHost: x\r\n"], Number(url.port))
      expectEnvelope(reply, 408, "request_timeout")
      expect(await (await fetch(slow.metricsUrl)).text()).toMatch(/^http_client_errors_total\{reason="timeout"\} 1$/m)
    } finally {
      await slow.close()
    }
  })

  it("garbage instead of a request line → 400 malformed_request; the service is healthy after all", async () => {
    const before = await counted()
    const reply = await exchange(["\u0001\u0002 not http at all\r\n\r\n"])
    expectEnvelope(reply, 400, "malformed_request")
    expect((await counted()).malformed).toBe((before.malformed ?? 0) + 1)
    expect((await api.get("/health")).status).toBe(200)
    expect((await api.get("/ready")).status).toBe(200)
  })
})
