import { dashboardTenant } from "../../dashboard/tenant.ts"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Webhooks } from "../../../app/Webhooks.ts"
import { Delivery } from "../../../domain/webhook.ts"
import { WebhookBody } from "./Api.ts"
import { withLivemode } from "../../shared/livemode.ts"
import { GatewayApi } from "../../Api.ts"
import { rendered } from "../render.ts"
import { jsonArrayStream } from "../../shared/jsonStream.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import type { AccountId } from "../../../domain/ids.ts"
import type { DeliveriesQuery } from "./Api.ts"

/** The operations both groups serve; only where the account comes from differs. */
const operations = <R>(webhooks: Webhooks, account: Effect.Effect<AccountId, never, R>) => ({
  // `{"deliveries": [...]}`, streamed like the other lists.
  deliveries: ({ urlParams }: { readonly urlParams: typeof DeliveriesQuery.Type }) =>
    Effect.flatMap(account, (accountId) =>
      jsonArrayStream(Delivery, webhooks.deliveries(accountId, urlParams), {
        open: '{"deliveries":[',
        close: "]}"
      })
    ),
  delivery: ({ path }: { readonly path: { readonly deliveryId: string } }) =>
    Effect.flatMap(account, (accountId) => webhooks.delivery(accountId, path.deliveryId)).pipe(rendered),
  resend: ({ path }: { readonly path: { readonly deliveryId: string } }) =>
    Effect.flatMap(account, (accountId) => webhooks.retry(accountId, path.deliveryId)).pipe(rendered),
  resendFailed: ({ payload }: { readonly payload: { readonly since: string } }) =>
    Effect.flatMap(account, (accountId) => webhooks.resendFailed(accountId, new Date(payload.since))),
  rotateSecret: ({ payload }: { readonly payload: { readonly overlapSeconds?: number | undefined } }) =>
    Effect.flatMap(account, (accountId) => webhooks.rotateSecret(accountId, payload.overlapSeconds)).pipe(rendered),
  sendTest: () => Effect.flatMap(account, (accountId) => webhooks.sendTest(accountId)).pipe(rendered)
})

export const DashboardWebhooksHttp = HttpApiBuilder.group(GatewayApi, "dashboardWebhooks", (handlers) =>
  Effect.gen(function* () {
    const op = operations(yield* Webhooks, yield* dashboardTenant)
    return handlers
      .handle("deliveries", op.deliveries)
      .handle("delivery", op.delivery)
      .handle("resend", op.resend)
      .handle("resendFailed", op.resendFailed)
      .handle("rotateSecret", op.rotateSecret)
      .handle("sendTest", op.sendTest)
  })
)

export const WebhooksHttp = HttpApiBuilder.group(GatewayApi, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const encode = Schema.encode(WebhookBody)
    const op = operations(
      webhooks,
      Effect.map(CurrentPrincipal, (p) => p.accountId)
    )
    return handlers
      .handle("delivery", op.delivery)
      .handle("resend", op.resend)
      .handle("resendFailed", op.resendFailed)
      .handle("rotateSecret", op.rotateSecret)
      .handle("sendTest", op.sendTest)
      .handle("upsert", ({ payload }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const made = yield* webhooks.upsert(accountId, payload.url)
          const webhook = yield* withLivemode(made.webhook)
          if (made.created) return webhook
          return yield* encode(webhook).pipe(
            Effect.flatMap((body) => HttpServerResponse.json(body, { status: 200 })),
            Effect.orDie
          )
        }).pipe(rendered)
      )
      .handle("get", () =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => webhooks.get(accountId)).pipe(
          Effect.flatMap(withLivemode),
          rendered
        )
      )
      .handle("remove", () =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => webhooks.remove(accountId)).pipe(rendered)
      )
      .handle("deliveries", op.deliveries)
      .handle("retry", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => webhooks.retry(accountId, path.deliveryId)).pipe(rendered)
      )
  })
)
