import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { format } from "prettier"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifyWebhook } from "../clients/typescript/examples/verify-webhook.ts"
import { createGatewayClient } from "../clients/typescript/src/index.ts"
import { clientSources } from "../scripts/generate-client.ts"
import { client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { startReceiver, type Receiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 11: the typed client (clients/typescript) is generated from the service's OpenAPI document,
 * is never stale, and runs the README walkthrough against the real service.
 */
let server: TestServer
let receiver: Receiver
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 10_000 })
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver?.close()
  await server?.close()
})

describe("clients/typescript", () => {
  it("the committed types are what `npm run client:generate` makes now (CI fails when stale)", async () => {
    const fresh = (await clientSources())["schema.ts"]
    const path = fileURLToPath(new URL("../clients/typescript/src/schema.ts", import.meta.url))
    const formatted = await format(fresh, { filepath: path, printWidth: 120, semi: false, trailingComma: "none" })
    expect(readFileSync(path, "utf8"), "run `npm run client:generate`").toBe(formatted)
  })

  it("runs the README walkthrough: customer, order, PIX, sandbox pay, refund, v1 pix, a verified webhook", async () => {
    const { key } = await signup(client(server.baseUrl))
    const gateway = createGatewayClient({ baseUrl: server.baseUrl, apiKey: key })
    const hook = await gateway.POST("/api/webhooks/upsert", { body: { url: receiver.url } })
    expect(hook.response.status).toBe(201)

    const customer = await gateway.POST("/api/customers", {
      body: { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), phone: "(11) 91234-5678" }
    })
    expect(customer.response.status).toBe(201)
    const order = await gateway.POST("/api/orders", { body: { customerId: customer.data!.id, amount: 15_000 } })
    expect(order.data!.status).toBe("PENDING")
    const pix = await gateway.POST("/api/payment-gateway/process", {
      body: {
        orderId: order.data!.id,
        method: "PIX",
        amount: 15_000,
        buyerDoc: customer.data!.document,
        buyerCellNumber: "(11) 91234-5678",
        buyerAddress: {
          postal_code: "01310100",
          street: "Av Paulista",
          number: "1000",
          neighborhood: "Bela Vista",
          city: "São Paulo",
          state: "SP"
        }
      }
    })
    expect(pix.response.status).toBe(201)
    expect(pix.data!.status).toBe("PENDING")
    const id = pix.data!.transactionId
    const paid = await gateway.POST("/api/sandbox/transactions/{id}/pay", { params: { path: { id } } })
    expect(paid.data!.status).toBe("PAID")
    const refund = await gateway.POST("/api/payment-gateway/refund", { body: { transactionId: id, amount: 5_000 } })
    expect(refund.data).toMatchObject({ status: "PARTIAL_REFUND", refundedAmount: 5_000 })

    const v1 = await gateway.POST("/public/v1/transactions", {
      body: { method: "pix", amount: 2_500, customer: { name: "Ana", email: "ana@example.com", document: freshCpf() } }
    })
    expect(v1.response.status).toBe(201)
    expect(v1.data!.data.status).toBe("pending")
    // The wrapper set an Idempotency-Key: the charge is remembered under one.
    const keys = await server.db.query("select count(*)::int as n from idempotency_keys")
    expect(keys.rows[0].n).toBeGreaterThanOrEqual(3)

    const [delivered] = await receiver
      .waitFor((requests) => requests.some((r) => r.body.includes("transaction.paid") && r.body.includes(id)), 15_000)
      .then((requests) => requests.filter((r) => r.body.includes("transaction.paid") && r.body.includes(id)))
    const event = verifyWebhook(hook.data!.secret, { body: delivered!.body, headers: delivered!.headers }) as any
    expect(event.data.transactionId).toBe(id)
    expect(() =>
      verifyWebhook(hook.data!.secret, { body: delivered!.body + " ", headers: delivered!.headers })
    ).toThrow()
  })

  it("is a package: packed from the repository path, installed offline into a shop, typed, and charging", async () => {
    const root = fileURLToPath(new URL("..", import.meta.url))
    const work = mkdtempSync(join(tmpdir(), "client-package-"))
    const run = promisify(execFile)
    const npm = (args: ReadonlyArray<string>, cwd: string) =>
      run("npm", [...args], { cwd, env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" } })
    try {
      // As clients/typescript/README.md says: pack the package from the repository path (its prepack runs
      // tsc). Its one dependency, openapi-fetch (and that one's), are packed from this repository's
      // node_modules, so the shop installs from local tarballs alone (--offline: no registry involved).
      await npm(["pack", join(root, "clients/typescript"), "--pack-destination", work], root)
      await npm(["pack", join(root, "node_modules/openapi-fetch"), "--pack-destination", work], root)
      await npm(["pack", join(root, "node_modules/openapi-typescript-helpers"), "--pack-destination", work], root)
      const tarballs = readdirSync(work).filter((name) => name.endsWith(".tgz"))
      expect(tarballs).toContain("brazil-payment-gateway-client-0.1.0.tgz")
      const shop = join(work, "shop")
      await run("mkdir", [shop])
      writeFileSync(join(shop, "package.json"), JSON.stringify({ name: "shop", private: true, type: "module" }))
      await npm(["install", "--offline", ...tarballs.map((name) => join(work, name))], shop)

      // Typed: the package's own declarations, through its exports map, refuse a wrong body.
      writeFileSync(
        join(shop, "check.ts"),
        [
          'import { createGatewayClient } from "@brazil-payment-gateway/client"',
          'const gateway = createGatewayClient({ baseUrl: "http://localhost:3000", apiKey: "sk_live_x" })',
          'void gateway.POST("/api/orders", { body: { customerId: "c", amount: 100 } })',
          "// @ts-expect-error amount is an integer number of centavos, not a string",
          'void gateway.POST("/api/orders", { body: { customerId: "c", amount: "100" } })',
          ""
        ].join("\n")
      )
      writeFileSync(
        join(shop, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            noEmit: true,
            lib: ["ES2023", "DOM"]
          },
          files: ["check.ts"]
        })
      )
      await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", shop], { cwd: shop })

      // And it runs: a PIX charge through the installed package against the real service.
      const { key } = await signup(client(server.baseUrl))
      writeFileSync(
        join(shop, "charge.mjs"),
        [
          'import { createGatewayClient } from "@brazil-payment-gateway/client"',
          "const gateway = createGatewayClient({ baseUrl: process.env.GATEWAY_URL, apiKey: process.env.GATEWAY_KEY })",
          'const { data, response } = await gateway.POST("/public/v1/transactions", {',
          '  body: { method: "pix", amount: 1234,',
          '    customer: { name: "Ana", email: "ana@example.com", document: process.env.DOC } }',
          "})",
          "console.log(JSON.stringify({ status: response.status, transaction: data.data }))",
          ""
        ].join("\n")
      )
      const { stdout } = await run(process.execPath, ["charge.mjs"], {
        cwd: shop,
        env: { ...process.env, GATEWAY_URL: server.baseUrl, GATEWAY_KEY: key, DOC: freshCpf() }
      })
      const result = JSON.parse(stdout)
      expect(result.status).toBe(201)
      expect(result.transaction).toMatchObject({ method: "pix", amount: 1234, status: "pending" })
      // The installed package is the packed copy, not a link into the repository.
      expect(readFileSync(join(shop, "node_modules/@brazil-payment-gateway/client/dist/index.js"), "utf8")).toContain(
        "createGatewayClient"
      )
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  }, 180_000)
})
