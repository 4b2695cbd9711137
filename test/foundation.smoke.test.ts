import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe("smoke", () => {
  it("serves health and a signup", async () => {
    const api = client(server.baseUrl)
    expect((await api.get("/health")).status).toBe(200)
    const account = await signup(api)
    const customers = await api.get("/api/customers", { key: account.key })
    expect(customers.status).toBe(200)
    expect(customers.body).toEqual([])
  })
})
