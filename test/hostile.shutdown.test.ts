import { request as httpRequest } from "node:http"
import { afterAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

/**
 * Issue 12, shutdown: SIGTERM drains the requests in flight (they get their real answer, not an
 * interruption), readiness turns 503 meanwhile, and the process exits 0.
 */
let service: RoleProcess | undefined
afterAll(async () => {
  await stopAll([service])
})

describe("SIGTERM with a request in flight", () => {
  it("answers the request, reports not ready while draining, and exits 0", async () => {
    service = await spawnRole("all", { DATABASE_URL: await createMigratedTestDatabase(), SHUTDOWN_GRACE_SECONDS: "15" })
    const api = client(service.baseUrl)
    const { key } = await signup(api)
    const body = JSON.stringify({
      name: "Ana",
      email: "ana@example.com",
      document: freshCpf(),
      phone: "(11) 91234-5678"
    })
    const url = new URL(service.baseUrl)
    const answered = new Promise<number>((resolve, reject) => {
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
          res.on("end", () => resolve(res.statusCode ?? 0))
        }
      )
      req.on("error", reject)
      // Half the body now, the rest after the SIGTERM: the request is in flight when the stop begins.
      req.write(body.slice(0, 10))
      setTimeout(() => req.end(body.slice(10)), 1_500)
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const stopped = service.stop("SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 500))
    const ready = await fetch(`${service.baseUrl}/ready`).then(
      (r) => r.status,
      () => 0
    )
    expect(ready).toBe(503) // still listening while it drains, but telling the load balancer to go away
    expect(await answered).toBe(201)
    expect(await stopped).toBe(0)
    expect(service.output()).not.toContain("All fibers interrupted")
  }, 60_000)
})
