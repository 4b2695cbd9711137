import { execFile } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { Redacted } from "effect"
import { SignJWT } from "jose"
import { expect } from "vitest"
import { ROOT, serviceEntry } from "./compiled.ts"
import type { Client, Reply } from "./http.ts"
import type { TestServer } from "./server.ts"

/** Shared helpers of the foundation end-to-end tests (test/foundation.*.test.ts). */

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const API_KEY = /^sk_(live|test)_[A-Za-z0-9_-]{43}$/

/** Asserts the /api error envelope of CONTRACT §4 with an exact status (and code when given). */
export const expectError = (reply: Reply, status: number, code?: string) => {
  expect(reply.status, reply.text).toBe(status)
  expect(reply.body, reply.text).toBeTypeOf("object")
  expect(reply.body.statusCode).toBe(status)
  expect(reply.body.error).toBe(STATUS_PHRASE[status])
  expect(reply.body.message).toBeTypeOf("string")
  expect(reply.body.message.length).toBeGreaterThan(0)
  if (code !== undefined) expect(reply.body.code).toBe(code)
  expect(reply.headers.get("content-type") ?? "").toMatch(/^application\/json/)
  return reply.body as {
    statusCode: number
    error: string
    message: string
    code?: string
    errors?: Array<{ field: string; message: string }>
  }
}

/** A 400 whose `errors` names exactly `fields` (in order) and whose `message` names the first. */
export const expectFieldErrors = (reply: Reply, fields: ReadonlyArray<string>) => {
  const body = expectError(reply, 400)
  expect(
    body.errors?.map((e) => e.field),
    reply.text
  ).toEqual(fields)
  expect(body.message).toContain(fields[0])
  for (const e of body.errors ?? []) expect(e.message).toContain(e.field)
  return body
}

export const STATUS_PHRASE: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error"
}

/** A valid CPF computed independently of the product (mod 11 check digits), unique per call. */
let cpfCounter = 0
export const freshCpf = (): string => {
  for (;;) {
    cpfCounter += 1
    const seed = (Number.parseInt(randomBytes(4).toString("hex"), 16) + cpfCounter) % 1_000_000_000
    const base = String(seed).padStart(9, "0")
    if (/^(\d)\1{8}$/.test(base)) continue
    const dv = (digits: string, start: number) => {
      let sum = 0
      for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * (start - i)
      const r = sum % 11
      return r < 2 ? 0 : 11 - r
    }
    const d1 = dv(base, 10)
    const d2 = dv(`${base}${d1}`, 11)
    return `${base}${d1}${d2}`
  }
}

/** A valid customer body; override any field. */
export const customerBody = (overrides: Record<string, unknown> = {}) => ({
  name: "Maria da Silva",
  email: "maria@example.com",
  document: freshCpf(),
  phone: "(11) 91234-5678",
  ...overrides
})

/** A well-formed API key that no account owns. */
export const unknownApiKey = () => `sk_live_${randomBytes(32).toString("base64url")}`

export const randomId = () => randomUUID()

/** The payload of a JWT, decoded without verification. */
export const jwtPayload = (token: string): Record<string, unknown> => {
  const parts = token.split(".")
  expect(parts).toHaveLength(3)
  return JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as Record<string, unknown>
}

/** A login token forged with the server's own secret (for expired / odd-claim cases). */
export const forgeToken = async (
  server: TestServer,
  claims: { sub: string; iat: number; exp: number; iss?: string },
  secret: string = Redacted.value(server.config.jwtSecret)
) =>
  new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuer(claims.iss ?? "payment-gateway")
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp)
    .sign(new TextEncoder().encode(secret))

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export const eventually = async <T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 50
): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs the operator CLI as a real process (`src/cli.ts …`, compiled once per run like the children of
 * `spawnRole`: test/support/compiled.ts) against the test server's database.
 */
export const runCli = async (server: TestServer, args: ReadonlyArray<string>, timeoutMs = 45_000) => {
  const entry = await serviceEntry()
  return new Promise<CliResult>((resolve) => {
    execFile(
      process.execPath,
      [...entry.cli, ...args],
      {
        cwd: ROOT,
        timeout: timeoutMs,
        env: {
          ...process.env,
          NODE_ENV: "development",
          DATABASE_URL: server.databaseUrl,
          DATA_DIR: server.config.dataDir,
          JWT_SECRET: Redacted.value(server.config.jwtSecret),
          CARD_VAULT_KEY: Redacted.value(server.config.cardVaultKey),
          RATE_LIMIT_PER_MINUTE: String(server.config.rateLimitPerMinute),
          LOG_LEVEL: "warning"
        }
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resolve({ code, stdout: String(stdout), stderr: String(stderr) })
      }
    )
  })
}

/** Creates a customer and an order for an account (201s asserted). */
export const customerAndOrder = async (api: Client, key: string, amount = 1000) => {
  const customer = await api.post("/api/customers", customerBody(), { key })
  expect(customer.status, customer.text).toBe(201)
  const order = await api.post("/api/orders", { customerId: customer.body.id, amount }, { key })
  expect(order.status, order.text).toBe(201)
  return {
    customer: customer.body as Record<string, unknown> & { id: string },
    order: order.body as Record<string, unknown> & { id: string }
  }
}
