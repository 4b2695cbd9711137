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

export const WebhooksHttp = HttpApiBuilder.group(GatewayApi, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const encode = Schema.encode(WebhookBody)
    return handlers
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
      .handle("deliveries", ({ urlParams }) =>
        // `{"deliveries": [...]}`, streamed like the other lists.
        Effect.flatMap(CurrentPrincipal, ({ accountId }) =>
          jsonArrayStream(Delivery, webhooks.deliveries(accountId, urlParams), {
            open: '{"deliveries":[',
            close: "]}"
          })
        )
      )
      .handle("retry", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => webhooks.retry(accountId, path.deliveryId)).pipe(rendered)
      )
  })
)
