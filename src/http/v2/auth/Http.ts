import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Accounts } from "../../../app/Accounts.ts"
import { GatewayApi } from "../../Api.ts"
import { rendered } from "../render.ts"

export const AuthHttp = HttpApiBuilder.group(GatewayApi, "auth", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    return handlers
      .handle("signup", ({ payload }) =>
        accounts.create(payload).pipe(
          Effect.map(({ account, apiKey, fullKey }) => ({ account, apiKey: { ...apiKey, fullKey } })),
          rendered
        )
      )
      .handle("login", ({ payload }) => accounts.login(payload.email, payload.password).pipe(rendered))
  })
)
