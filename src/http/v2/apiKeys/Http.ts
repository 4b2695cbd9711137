import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Accounts } from "../../../app/Accounts.ts"
import { GatewayApi } from "../../Api.ts"
import { rendered } from "../render.ts"
import { CurrentSession } from "../../shared/security.ts"

export const ApiKeysHttp = HttpApiBuilder.group(GatewayApi, "apiKeys", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    return handlers
      .handle("me", () =>
        Effect.flatMap(CurrentSession, ({ accountId }) => accounts.primaryKey(accountId)).pipe(rendered)
      )
      .handle("list", () =>
        Effect.flatMap(CurrentSession, ({ accountId }) => accounts.listRestrictedKeys(accountId)).pipe(rendered)
      )
      .handle("revoke", ({ path }) =>
        Effect.flatMap(CurrentSession, ({ accountId }) => accounts.revokeRestrictedKey(accountId, path.id)).pipe(
          rendered
        )
      )
      .handle("live", () =>
        Effect.flatMap(CurrentSession, ({ accountId }) => accounts.createLiveKey(accountId)).pipe(
          Effect.map(({ apiKey, fullKey }) => ({
            id: apiKey.id,
            label: apiKey.label,
            fullKey,
            keyPrefix: apiKey.keyPrefix,
            maskedKey: apiKey.maskedKey,
            livemode: true as const,
            active: apiKey.active,
            createdAt: apiKey.createdAt
          })),
          rendered
        )
      )
      .handle("regenerate", () =>
        Effect.flatMap(CurrentSession, ({ accountId }) => accounts.regenerate(accountId)).pipe(
          Effect.map(({ apiKey, fullKey }) => ({
            id: apiKey.id,
            label: apiKey.label,
            fullKey,
            active: apiKey.active,
            createdAt: apiKey.createdAt
          })),
          rendered
        )
      )
  })
)
