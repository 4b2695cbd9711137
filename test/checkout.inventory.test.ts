import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import inventory from "../src/http/checkout/inventory.json" with { type: "json" }
import { client, signup } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * PCI DSS 4.0 req. 6.4.3 and 11.6.1 for the payment pages (docs/checkout.md "Script inventory"): every
 * script a page loads is in src/http/checkout/inventory.json with its purpose and SRI hash, is written with
 * that `integrity=`, the served bytes hash to it, and the CSP allows no other script. Changing an asset
 * without the inventory, or adding a script, fails here.
 */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
})
afterAll(async () => {
  await server?.close()
})

const sri = (bytes: ArrayBuffer) => `sha384-${createHash("sha384").update(Buffer.from(bytes)).digest("base64")}`
const listed = new Map([...inventory.scripts, ...inventory.styles].map((e) => [e.src, e.integrity]))
const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]

describe("the payment pages' script inventory", () => {
  it("each listed asset is served with the bytes its recorded hash names", async () => {
    for (const [src, integrity] of listed) {
      const reply = await fetch(`${server.baseUrl}${src}`)
      expect(reply.status, src).toBe(200)
      const actual = sri(await reply.arrayBuffer())
      expect(actual, `${src} changed: record ${actual} in src/http/checkout/inventory.json if it is meant`).toBe(
        integrity
      )
    }
  })

  it("every page loads only listed scripts and styles, each with its integrity; the CSP allows no other", async () => {
    const api = client(server.baseUrl)
    const m = await signup(api, "Loja Inventário")
    const customer = { name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" }
    const pages: Array<string> = []
    for (const body of [
      { method: "credit_card", amount: 10_000, installments: 3, customer },
      { method: "pix", amount: 10_000, customer },
      { method: "billet", amount: 10_000, customer }
    ]) {
      const reply = await api.post("/public/v1/transactions", body, { token: m.key })
      expect(reply.status, reply.text).toBe(201)
      pages.push(new URL(reply.body.data.checkout_url).pathname)
    }
    pages.push("/checkout/no-such-token")
    for (const path of pages) {
      const reply = await fetch(`${server.baseUrl}${path}`, { headers: { accept: "text/html" } })
      const html = await reply.text()
      const csp = reply.headers.get("content-security-policy") ?? ""
      expect(csp, path).toMatch(/(^|;)\s*script-src 'self'(;|$)/)
      expect(csp, path).not.toContain("unsafe-inline")
      const scripts = html.match(/<script\b[^>]*>/g) ?? []
      for (const tag of scripts) {
        const src = attr(tag, "src")
        expect(src, `${path}: an inline script ${tag}`).toBeDefined()
        expect(listed.has(src!), `${path}: ${src} is not in the inventory`).toBe(true)
        expect(attr(tag, "integrity"), `${path}: ${src} without its recorded integrity`).toBe(listed.get(src!))
      }
      for (const tag of html.match(/<link\b[^>]*rel="stylesheet"[^>]*>/g) ?? []) {
        const href = attr(tag, "href")!
        expect(listed.has(href), `${path}: ${href} is not in the inventory`).toBe(true)
        expect(attr(tag, "integrity"), `${path}: ${href} without its recorded integrity`).toBe(listed.get(href))
      }
      expect(html, path).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i)
    }
  })
})
