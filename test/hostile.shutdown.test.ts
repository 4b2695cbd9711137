import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

/**
 * Issue 12, shutdown: SIGTERM drains the requests in flight (they get their real answer, not an
 * interruption), readiness turns 503 meanwhile, and the process exits 0. docs/deployment.md "Shutdown":
 * SIGTERM "stops accepting connections": a new connection is refused, a new request on a connection opened
 * before is refused with the 503 envelope, and every answer while draining says `Connection: close`.
 */
const services: Array<RoleProcess | undefined> = []
afterAll(async () => {
  await stopAll(services)
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const customer = () =>
  JSON.stringify({ name: "Ana", email: "ana@example.com", document: freshCpf(), phone: "(11) 91234-5678" })

/** A POST /api/customers whose body is half sent now and finished after `finishAfterMs`. */
const slowCustomer = (baseUrl: string, key: string, finishAfterMs: number) => {
  const body = customer()
  const url = new URL(baseUrl)
  return new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    const req = httpRequest(
      {
        method: "POST",
        hostname: url.hostname,
        port: url.port,
        path: "/api/customers",
        headers: { "content-type": "application/json", "content-length": String(body.length), "x-api-key": key }
      },
      (res) => {
        res.resume()
        res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }))
      }
    )
    req.on("error", reject)
    req.write(body.slice(0, 10))
    setTimeout(() => req.end(body.slice(10)), finishAfterMs)
  })
}

/**
 * A connection opened now, its request's first header lines sent now and the rest (`rest`: the remaining
 * header lines, the blank line and any body) by `finish`: a request that arrives, on a connection the
 * process already had, after the drain began. Resolves with the raw answer once the server closes it.
 */
const openConnection = async (baseUrl: string, head: string) => {
  const url = new URL(baseUrl)
  const socket = connect(Number(url.port), url.hostname)
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve)
    socket.once("error", reject)
  })
  let received = ""
  socket.setEncoding("utf8").on("data", (chunk: string) => {
    received += chunk
  })
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()))
  socket.write(head)
  return {
    finish: async (rest: string) => {
      socket.write(rest)
      // The server ends the connection after its answer (`Connection: close`); 5 s is a hang.
      await Promise.race([closed, sleep(5_000)])
      socket.destroy()
      const [headText = "", body = ""] = received.split("\r\n\r\n")
      const [statusLine = "", ...lines] = headText.split("\r\n")
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()])
      )
      return { status: Number(statusLine.split(" ")[1] ?? 0), headers, body, raw: received }
    }
  }
}

describe("SIGTERM with a request in flight", () => {
  it("answers the request, reports not ready while draining, and exits 0", async () => {
    const service = await spawnRole("all", {
      DATABASE_URL: await createMigratedTestDatabase(),
      SHUTDOWN_GRACE_SECONDS: "15"
    })
    services.push(service)
    const { key } = await signup(client(service.baseUrl))
    // Half the body now, the rest after the SIGTERM: the request is in flight when the stop begins.
    const answered = slowCustomer(service.baseUrl, key, 1_500)
    // A load balancer's probe on a connection it already had (a new connection is refused while draining).
    const probe = await openConnection(service.baseUrl, "GET /ready HTTP/1.1\r\n")
    await sleep(300)
    const stopped = service.stop("SIGTERM")
    await sleep(500)
    const ready = await probe.finish("Host: 127.0.0.1\r\n\r\n")
    expect(ready.status, ready.raw).toBe(503) // telling the load balancer to go away
    expect((await answered).status).toBe(201)
    expect(await stopped).toBe(0)
    expect(service.output()).not.toContain("All fibers interrupted")
  }, 60_000)

  it("takes no new request: a new connection is refused, one on an open connection gets the 503 envelope", async () => {
    const service = await spawnRole("api", {
      DATABASE_URL: await createMigratedTestDatabase(),
      SHUTDOWN_GRACE_SECONDS: "15"
    })
    services.push(service)
    const api = client(service.baseUrl)
    const { key } = await signup(api)
    // One request in flight for 3 s, and a connection whose request is still arriving at the SIGTERM.
    const slow = slowCustomer(service.baseUrl, key, 3_000)
    const open = await openConnection(service.baseUrl, "POST /api/customers HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    await sleep(300)
    const stopped = service.stop("SIGTERM")
    await sleep(700)
    // A brand-new connection a second after the SIGTERM: the listener is closed (before: served, 201).
    const late = await api.post("/api/customers", JSON.parse(customer()), { key }).then(
      (r) => r.status,
      () => 0
    )
    expect(late, "a request on a new connection after SIGTERM was answered").toBe(0)
    // The rest of the request on the connection opened before: refused, not run, and the connection closed.
    const body = customer()
    const refused = await open.finish(
      `content-type: application/json\r\nx-api-key: ${key}\r\ncontent-length: ${body.length}\r\n\r\n${body}`
    )
    expect(refused.status, refused.raw).toBe(503)
    expect(refused.headers["connection"]).toBe("close")
    expect(refused.headers["retry-after"]).toBe("1")
    expect(JSON.parse(refused.body)).toMatchObject({ statusCode: 503, code: "shutting_down" })
    // The request in flight gets its real answer, and its connection is not kept either.
    expect(await slow).toEqual({ status: 201, connection: "close" })
    expect(await stopped).toBe(0)
  }, 60_000)
})
