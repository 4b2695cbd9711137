import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiKey } from "../../../domain/account.ts"
import { NotFound } from "../../shared/errors.ts"
import { SessionAuth } from "../../shared/security.ts"

export const RegenerateResponse = Schema.Struct({
  id: Schema.UUID,
  label: Schema.String,
  fullKey: Schema.String,
  active: Schema.Boolean,
  createdAt: Schema.Date
})

export class ApiKeysApi extends HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.get("me", "/me")
      .addSuccess(ApiKey)
      .addError(NotFound)
      .annotate(OpenApi.Description, "The account's primary key record; `lastUsedAt` lags requests by up to a second.")
  )
  .add(
    HttpApiEndpoint.post("regenerate", "/me/regenerate")
      .addSuccess(RegenerateResponse)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Issues a new secret; the old key is refused (401) by every API process at once.")
  )
  .middleware(SessionAuth)
  .prefix("/api-keys")
  .annotate(OpenApi.Title, "API keys") {}
