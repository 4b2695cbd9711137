/**
 * A small typed client for merchants' servers, over `openapi-fetch` and the types generated from the
 * gateway's OpenAPI document (`npm run client:generate`). It sends the API key the way each interface
 * expects (X-Api-Key on /api, Bearer on /public/v1) and an Idempotency-Key on every charge and refund
 * that has none, so a retried call never charges twice.
 */
import createClient, { type Middleware } from "openapi-fetch"
import type { paths } from "./schema.ts"

export type { paths } from "./schema.ts"

/** The POSTs of CONTRACT §6 that take an Idempotency-Key. */
const IDEMPOTENT = [
  /\/api\/payment-gateway\/process$/,
  /\/api\/payment-gateway\/refund$/,
  /\/public\/v1\/transactions$/,
  /\/public\/v1\/transactions\/[^/]+\/refund$/
]

export interface GatewayClientOptions {
  /** e.g. https://pay.example.com */
  readonly baseUrl: string
  /** The account's secret key, sk_live_… (server side only). */
  readonly apiKey: string
  /** Idempotency keys for calls that set none (default: a random UUID per call). */
  readonly idempotencyKey?: () => string
  readonly fetch?: typeof fetch
}

export const createGatewayClient = (options: GatewayClientOptions) => {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {})
  })
  const auth: Middleware = {
    onRequest({ request }) {
      const path = new URL(request.url).pathname
      if (path.startsWith("/public/v1/")) request.headers.set("authorization", `Bearer ${options.apiKey}`)
      else request.headers.set("x-api-key", options.apiKey)
      if (
        request.method === "POST" &&
        !request.headers.has("idempotency-key") &&
        IDEMPOTENT.some((pattern) => pattern.test(path))
      ) {
        request.headers.set("idempotency-key", (options.idempotencyKey ?? (() => crypto.randomUUID()))())
      }
      return request
    }
  }
  client.use(auth)
  return client
}
