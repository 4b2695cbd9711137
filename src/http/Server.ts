import { createServer } from "node:http"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { GatewayApi } from "./Api.ts"
import { ApiKeysHttp } from "./v2/apiKeys/Http.ts"
import { AuthHttp } from "./v2/auth/Http.ts"
import { CustomersHttp } from "./v2/customers/Http.ts"
import { EnvelopeMiddleware } from "./shared/envelope.ts"
import { Draining } from "./shared/Draining.ts"
import { ServeOnNarrowContext } from "./serve.ts"
import { installFramingAnswers } from "./shared/framing.ts"
import { Metrics } from "../ports/Metrics.ts"
import { OpsHttp } from "./ops/Http.ts"
import { FaviconLive } from "./ops/favicon.ts"
import { BankRetornoUploadLive } from "./bank/retornos.ts"
import { ReferenceLive } from "./ops/reference.ts"
import { DocumentsHttp } from "./documents/Http.ts"
import { CheckoutHttp } from "./checkout/Http.ts"
import { PayLinksHttp } from "./payLinks/Http.ts"
import { OrdersHttp } from "./v2/orders/Http.ts"
import { PaymentsHttp } from "./v2/payments/Http.ts"
import { SandboxHttp } from "./v2/sandbox/Http.ts"
import { ApiKeyAuthLive, KeyAuthenticationLive, SessionAuthLive, SignupGateLive } from "./shared/securityLive.ts"
import { ApiTokenAuthLive } from "./v1/securityLive.ts"
import { V1InstallmentsHttp } from "./v1/installments/Http.ts"
import { V1TransactionsHttp } from "./v1/transactions/Http.ts"
import { V1SubaccountsHttp } from "./v1/subaccounts/Http.ts"
import { V1BalanceHttp } from "./v1/balance/Http.ts"
import { V1WithdrawalsHttp } from "./v1/withdrawals/Http.ts"
import { V1AntifraudHttp } from "./v1/antifraud/Http.ts"
import { V1PaymentLinksHttp } from "./v1/paymentLinks/Http.ts"
import { TransactionsHttp } from "./v2/transactions/Http.ts"
import { DashboardWebhooksHttp, WebhooksHttp } from "./v2/webhooks/Http.ts"
import { DashboardEventsHttp, EventsHttp } from "./v2/events/Http.ts"
import { DashboardRequestLogHttp, RequestLogHttp } from "./v2/requestLog/Http.ts"
import { DashboardHttp } from "./dashboard/Http.ts"
import { DashboardPaymentLinksHttp } from "./dashboard/paymentLinks/Http.ts"
import { DashboardModeLive } from "./dashboard/mode.ts"
import { DashboardWebLive } from "./dashboard/web.ts"

/** Every group's handlers, with the security middleware provided to the groups that use it. */
export const ApiLive = HttpApiBuilder.api(GatewayApi).pipe(
  Layer.provide([
    OpsHttp,
    DocumentsHttp,
    CheckoutHttp,
    PayLinksHttp,
    AuthHttp,
    ApiKeysHttp,
    CustomersHttp,
    OrdersHttp,
    TransactionsHttp,
    PaymentsHttp,
    WebhooksHttp,
    EventsHttp,
    DashboardEventsHttp,
    DashboardWebhooksHttp,
    RequestLogHttp,
    DashboardRequestLogHttp,
    V1TransactionsHttp,
    V1InstallmentsHttp,
    V1SubaccountsHttp,
    V1BalanceHttp,
    V1WithdrawalsHttp,
    V1AntifraudHttp,
    V1PaymentLinksHttp,
    SandboxHttp,
    DashboardHttp,
    DashboardPaymentLinksHttp
  ]),
  Layer.provide([ApiKeyAuthLive, ApiTokenAuthLive, SessionAuthLive, SignupGateLive, DashboardModeLive]),
  Layer.provide(KeyAuthenticationLive)
)

/** The HTTP server: API, OpenAPI document, reference UI, on PORT/HOST (port 0 picks a free one). */
export const HttpLive = ServeOnNarrowContext.pipe(
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
  // The reference's page (HttpApiScalar's, its script inlined) is loaded on the first request for it.
  Layer.provide(ReferenceLive),
  Layer.provide(FaviconLive),
  Layer.provide(BankRetornoUploadLive),
  Layer.provide(DashboardWebLive),
  Layer.provide(EnvelopeMiddleware),
  Layer.provide(ApiLive),
  HttpServer.withLogAddress,
  Layer.provideMerge(
    Layer.unwrapEffect(
      Effect.map(Effect.all([AppConfig, Metrics, Draining]), ([config, metrics, draining]) =>
        NodeHttpServer.layer(
          () => {
            // A slow or drip-fed client cannot hold a socket for long, and one process accepts a
            // bounded number of connections (the load balancer spreads the rest).
            const server = createServer({
              requestTimeout: config.http.requestTimeoutMs,
              headersTimeout: config.http.headersTimeoutMs,
              // How often Node enforces the two timeouts (its default, 30 s, would let a drip-fed
              // request outlive a short timeout by that much).
              connectionsCheckingInterval: Math.min(1_000, config.http.headersTimeoutMs)
            })
            server.maxConnections = config.http.maxConnections
            // Requests the parser refuses get the envelope too, and a count (docs/input.md "Framing").
            installFramingAnswers(server, metrics)
            // SIGTERM stops accepting connections as the drain begins (docs/deployment.md "Shutdown").
            draining.watch(server)
            return server
          },
          {
            port: config.port,
            host: config.host
          }
        )
      )
    )
  )
)
