import { createServer } from "node:http"
import { HttpApiBuilder, HttpApiScalar, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { GatewayApi } from "./Api.ts"
import { ApiKeysHttp } from "./apiKeys/Http.ts"
import { AuthHttp } from "./auth/Http.ts"
import { CustomersHttp } from "./customers/Http.ts"
import { EnvelopeMiddleware } from "./envelope.ts"
import { OpsHttp } from "./ops/Http.ts"
import { DocumentsHttp } from "./documents/Http.ts"
import { OrdersHttp } from "./orders/Http.ts"
import { PaymentsHttp } from "./payments/Http.ts"
import { SandboxHttp } from "./sandbox/Http.ts"
import { ApiKeyAuthLive, SessionAuthLive, SignupGateLive } from "./securityLive.ts"
import { TransactionsHttp } from "./transactions/Http.ts"
import { WebhooksHttp } from "./webhooks/Http.ts"

/** Every group's handlers, with the security middleware provided to the groups that use it. */
export const ApiLive = HttpApiBuilder.api(GatewayApi).pipe(
  Layer.provide([
    OpsHttp,
    DocumentsHttp,
    AuthHttp,
    ApiKeysHttp,
    CustomersHttp,
    OrdersHttp,
    TransactionsHttp,
    PaymentsHttp,
    WebhooksHttp,
    SandboxHttp
  ]),
  Layer.provide([ApiKeyAuthLive, SessionAuthLive, SignupGateLive])
)

/** The HTTP server: API, OpenAPI document, reference UI, on PORT/HOST (port 0 picks a free one). */
export const HttpLive = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
  Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
  Layer.provide(EnvelopeMiddleware),
  Layer.provide(ApiLive),
  HttpServer.withLogAddress,
  Layer.provideMerge(
    Layer.unwrapEffect(
      Effect.map(AppConfig, (config) =>
        NodeHttpServer.layer(() => createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }), {
          port: config.port,
          host: config.host
        })
      )
    )
  )
)
