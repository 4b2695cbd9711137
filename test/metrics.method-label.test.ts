/**
 * `http_requests_total{method}` and `http_request_duration_seconds{method}` name only the methods the API
 * serves; any other (Node's parser takes some 35) is "other", so anonymous clients cannot multiply the series,
 * as the route label is bounded by template (routes.ts).
 */
import { METHODS, request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

let gw: RoleProcess | undefined
beforeAll(async () => {
  gw = await spawnRole("api", { DATABASE_URL: await createMigratedTestDatabase() }, { readyTimeoutMs: 60_000 })
}, 120_000)
afterAll(async () => {
  await stopAll([gw])
})

const send = (method: string, path: string) =>
  new Promise<number>((resolve) => {
    const u = new URL(gw!.baseUrl)
    const req = httpRequest({ host: u.hostname, port: u.port, method, path }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", () => resolve(-1))
    req.end()
  })

const series = async () =>
  (await (await fetch(gw!.metricsUrl)).text()).split("\n").filter((l) => /^http_request/.test(l))

describe("the method label of the HTTP metrics", () => {
  it("stays within the methods the API serves, whatever anonymous clients send", async () => {
    const openapi = (await (await fetch(`${gw!.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> }
    const paths = Object.keys(openapi.paths).map((p) => p.replace(/\{[^}]+\}/g, "x"))
    const methods = METHODS.filter((m) => m !== "CONNECT")
    for (const path of paths) {
      await Promise.all(methods.map((m) => send(m, path)))
    }
    const after = await series()
    const labels = new Set(after.flatMap((l) => [...l.matchAll(/method="([^"]+)"/g)].map((m) => m[1]!)))
    const served = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"])
    expect([...labels].filter((m) => !served.has(m)).sort()).toEqual([])
  }, 240_000)
})
