import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

/**
 * CONTRACT-v1 §1: `api_token` travels in URLs, so the service must keep it out of every log line,
 * metric label and stored URL. The service runs as a child process logging everything (LOG_LEVEL=all),
 * requests carry the key in the query on good, bad and failing routes, and its whole output is searched.
 */
let service: RoleProcess
beforeAll(async () => {
  service = await spawnRole("all", {
    DATABASE_URL: await createMigratedTestDatabase(),
    LOG_LEVEL: "all",
    WEBHOOK_ALLOW_PRIVATE_URLS: "true"
  })
}, 60_000)
afterAll(async () => {
  await stopAll([service])
})

describe("api_token redaction", () => {
  it("appears in no log line and no metric, whatever the request did", async () => {
    const api = client(service.baseUrl)
    const { key } = await signup(api)
    const q = `api_token=${key}`
    const customer = { name: "Ana", email: "ana@example.com", document: freshCpf() }
    const made = await api.post(`/public/v1/transactions?${q}`, { method: "pix", amount: 1_000, customer })
    expect(made.status).toBe(201)
    await api.get(`/public/v1/transactions/${made.body.data.hash}?${q}`)
    await api.get(`/public/v1/transactions?${q}&status=unknown`)
    await api.post(`/public/v1/transactions?${q}`, { method: "pix" })
    await api.post(`/public/v1/transactions?${q}`, undefined, { raw: "{not json" })
    await api.get(`/public/v1/nowhere?${q}`)
    await api.get(`/public/v1/installments?${q}`, { headers: { accept: "text/html" } })
    await api.get(`/public/v1/installments?amount=1000&${q}`)
    const metrics = await (await fetch(service.metricsUrl)).text()
    await new Promise((resolve) => setTimeout(resolve, 500))
    const output = service.output()
    // The access log did record these requests, with the credential replaced.
    expect(output).toContain("api_token=[REDACTED]")
    expect(output).not.toContain(key)
    expect(output).not.toContain(key.slice(8))
    expect(metrics).not.toContain(key.slice(8))
  })
})
