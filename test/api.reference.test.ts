import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The API reference a merchant reads (issue 23.5, docs/api.md "Reference"): every operation of
 * /openapi.json has a summary and a description, tags read as words, the prose cites no contract
 * section, the recommended credentials come first, and GET / points to /docs.
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

const operations = (document: any) =>
  Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => typeof operation === "object" && operation?.responses !== undefined)
      .map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, operation }))
  )

describe("/openapi.json as a reference (issue 23.5)", () => {
  it("every operation has a summary and a description; tags are words", async () => {
    const document = (await api.get("/openapi.json")).body
    const all = operations(document)
    expect(all.length).toBeGreaterThanOrEqual(53)
    for (const { label, operation } of all) {
      expect(operation.summary, label).toEqual(expect.any(String))
      expect(operation.summary.length, label).toBeGreaterThan(5)
      expect(operation.description, label).toEqual(expect.any(String))
      expect(operation.description.length, label).toBeGreaterThan(20)
      for (const tag of operation.tags) expect(tag, label).toMatch(/^[A-Z][A-Za-z]*( [a-z]+)*( \(v1\))?$/)
    }
    const tags = document.tags.map((t: { name: string }) => t.name)
    expect(tags).toContain("Transactions (v1)")
    expect(tags).toContain("Balance and financials (v1)")
    expect(tags.filter((t: string) => /^v1[A-Z]/.test(t))).toEqual([])
  })

  it("the prose links to the docs instead of citing contract sections", async () => {
    const text = (await api.get("/openapi.json")).text
    expect(text).not.toMatch(/CONTRACT(-v1)? ?§/)
    expect(text).not.toMatch(/See README/)
  })

  it("the recommended credentials come first", async () => {
    const document = (await api.get("/openapi.json")).body
    expect(Object.keys(document.components.securitySchemes)).toEqual(["apiKey", "apiKeyBearer", "bearer", "apiToken"])
    const create = document.paths["/public/v1/transactions"].post
    expect(create.security).toEqual([{ apiKeyBearer: [] }, { apiToken: [] }])
  })

  it("the dashboard's old delivery retry is marked deprecated, naming the route that replaced it", async () => {
    const document = (await api.get("/openapi.json")).body
    const retry = document.paths["/api/dashboard/deliveries/{id}/retry"].post
    expect(retry.deprecated).toBe(true)
    expect(retry.description).toContain("/api/dashboard/webhooks/deliveries/{deliveryId}/resend")
    expect(document.paths["/api/dashboard/webhooks/deliveries/{deliveryId}/resend"].post.deprecated).toBeUndefined()
  })

  it("GET / points to /docs: a redirect for a browser, links for any other client", async () => {
    const browser = await fetch(`${server.baseUrl}/`, { headers: { accept: "text/html" }, redirect: "manual" })
    expect(browser.status).toBe(302)
    expect(browser.headers.get("location")).toBe("/docs")
    const other = await api.get("/")
    expect(other.status).toBe(200)
    expect(other.body).toMatchObject({ docs: "/docs", openapi: "/openapi.json" })
    const docs = await fetch(`${server.baseUrl}/docs`)
    expect(docs.status).toBe(200)
    const html = await docs.text()
    // Nothing the page loads comes from elsewhere (the Chromium test checks what it requests).
    expect(html).not.toMatch(/<script[^>]+src="https?:/)
    expect(html).toContain('"withDefaultFonts":false')
  })
})
