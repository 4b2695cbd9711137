import { HttpApi, OpenApi } from "@effect/platform"
import { ApiKeysApi } from "./v2/apiKeys/Api.ts"
import { AuthApi } from "./v2/auth/Api.ts"
import { CustomersApi } from "./v2/customers/Api.ts"
import { ErrorBody } from "./shared/annotations.ts"
import { InternalServerError } from "./shared/errors.ts"
import { describeErrorsTruthfully } from "./shared/openapi.ts"
import { OpsApi } from "./ops/Api.ts"
import { DocumentsApi } from "./documents/Api.ts"
import { CheckoutApi } from "./checkout/Api.ts"
import { PayLinksApi } from "./payLinks/Api.ts"
import { OrdersApi } from "./v2/orders/Api.ts"
import { PaymentsApi } from "./v2/payments/Api.ts"
import { SandboxApi } from "./v2/sandbox/Api.ts"
import { TransactionsApi } from "./v2/transactions/Api.ts"
import { DashboardWebhooksApi, WebhooksApi } from "./v2/webhooks/Api.ts"
import { DashboardEventsApi, EventsApi } from "./v2/events/Api.ts"
import { DashboardRequestLogApi, RequestLogApi } from "./v2/requestLog/Api.ts"
import { V1InstallmentsApi } from "./v1/installments/Api.ts"
import { V1TransactionsApi } from "./v1/transactions/Api.ts"
import { V1BalanceApi } from "./v1/balance/Api.ts"
import { V1WithdrawalsApi } from "./v1/withdrawals/Api.ts"
import { V1SubaccountsApi } from "./v1/subaccounts/Api.ts"
import { V1AntifraudApi } from "./v1/antifraud/Api.ts"
import { V1PaymentLinksApi } from "./v1/paymentLinks/Api.ts"
import { DashboardApi } from "./dashboard/Api.ts"
import { DashboardPaymentLinksApi } from "./dashboard/paymentLinks/Api.ts"

/** Interface v2, served under /api. */
export class V2Api extends HttpApi.make("v2")
  .add(AuthApi)
  .add(ApiKeysApi)
  .add(CustomersApi)
  .add(OrdersApi)
  .add(TransactionsApi)
  .add(PaymentsApi)
  .add(WebhooksApi)
  .add(EventsApi)
  .add(DashboardEventsApi)
  .add(DashboardWebhooksApi)
  .add(RequestLogApi)
  .add(DashboardRequestLogApi)
  .add(SandboxApi)
  .add(DashboardApi)
  .add(DashboardPaymentLinksApi)
  .prefix("/api")
  .annotate(ErrorBody, "plain") {}

/** Interface v1, served under /public/v1 (CONTRACT-v1): its error body adds `success: false`. */
export class V1Api extends HttpApi.make("v1")
  .add(V1TransactionsApi)
  .add(V1InstallmentsApi)
  .add(V1BalanceApi)
  .add(V1WithdrawalsApi)
  .add(V1SubaccountsApi)
  .add(V1AntifraudApi)
  .add(V1PaymentLinksApi)
  .prefix("/public/v1")
  .annotate(ErrorBody, "successFlag") {}

/** The whole service: operations plus both interfaces. */
export class GatewayApi extends HttpApi.make("gateway")
  .add(OpsApi)
  .add(DocumentsApi)
  .add(CheckoutApi)
  .add(PayLinksApi)
  .addHttpApi(V2Api)
  .addHttpApi(V1Api)
  .addError(InternalServerError)
  .annotate(OpenApi.Title, "Brazil Payment Gateway")
  .annotate(OpenApi.Version, "0.1.0")
  .annotate(OpenApi.Transform, describeErrorsTruthfully)
  .annotate(
    OpenApi.Description,
    "Card, PIX and boleto payments for Brazil, through two interfaces: `/api` (authenticate with the " +
      "`X-Api-Key` header) and `/public/v1` (the same API key as `Authorization: Bearer`). Money is an " +
      "integer number of centavos; identifiers are UUIDs; every error is one JSON envelope with a `code`. " +
      "Bodies and query strings take only the fields each operation lists: anything else is a 400 naming " +
      "it. Lists are newest first. The rules across operations are in the project's docs/api.md; the " +
      "sandbox section lets you pay, expire and dispute test charges."
  ) {}
