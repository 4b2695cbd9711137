import { HttpApi, OpenApi } from "@effect/platform"
import { ApiKeysApi } from "./apiKeys/Api.ts"
import { AuthApi } from "./auth/Api.ts"
import { CustomersApi } from "./customers/Api.ts"
import { InternalServerError } from "./errors.ts"
import { describeErrorsTruthfully } from "./openapi.ts"
import { OpsApi } from "./ops/Api.ts"
import { DocumentsApi } from "./documents/Api.ts"
import { OrdersApi } from "./orders/Api.ts"
import { PaymentsApi } from "./payments/Api.ts"
import { SandboxApi } from "./sandbox/Api.ts"
import { TransactionsApi } from "./transactions/Api.ts"
import { WebhooksApi } from "./webhooks/Api.ts"

/** Interface v2, served under /api. */
export class V2Api extends HttpApi.make("v2")
  .add(AuthApi)
  .add(ApiKeysApi)
  .add(CustomersApi)
  .add(OrdersApi)
  .add(TransactionsApi)
  .add(PaymentsApi)
  .add(WebhooksApi)
  .add(SandboxApi)
  .prefix("/api") {}

/** The whole service: operations plus both interfaces (the /public/v1 groups join here later). */
export class GatewayApi extends HttpApi.make("gateway")
  .add(OpsApi)
  .add(DocumentsApi)
  .addHttpApi(V2Api)
  .addError(InternalServerError)
  .annotate(OpenApi.Title, "Brazil Payment Gateway")
  .annotate(OpenApi.Version, "0.1.0")
  .annotate(OpenApi.Transform, describeErrorsTruthfully)
  .annotate(
    OpenApi.Description,
    "Card, PIX and boleto payments for Brazil. See README for conventions: money in centavos, ISO 8601 UTC timestamps, UUID identifiers, one error envelope."
  ) {}
