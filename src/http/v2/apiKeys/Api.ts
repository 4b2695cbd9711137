import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiKey } from "../../../domain/account.ts"
import { BadRequest, Conflict, NotFound } from "../../shared/errors.ts"
import { SessionAuth } from "../../shared/security.ts"

export const RegenerateResponse = Schema.Struct({
  id: Schema.UUID,
  label: Schema.String,
  fullKey: Schema.String,
  active: Schema.Boolean,
  createdAt: Schema.Date
})

export const LiveKeyResponse = Schema.Struct({
  id: Schema.UUID,
  label: Schema.String,
  fullKey: Schema.String,
  keyPrefix: Schema.String,
  maskedKey: Schema.String,
  livemode: Schema.Literal(true),
  active: Schema.Boolean,
  createdAt: Schema.Date
})

const id = HttpApiSchema.param("id", Schema.UUID)

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
  .add(
    HttpApiEndpoint.post("live", "/me/live")
      .addSuccess(LiveKeyResponse, { status: 201 })
      .addError(Conflict)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create the live key")
      .annotate(
        OpenApi.Description,
        'Issues the account\'s live key (`sk_live_…`; docs/providers.md "Test and live modes"): its records, ' +
          "balance and webhooks are the live mode's, apart from the test key's. The full key is shown only here; " +
          "asked again, a new secret replaces it and the previous live key is refused at once. 409 " +
          "`live_mode_unavailable` when the operator has configured no live payment provider, naming what is missing."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/")
      .addSuccess(Schema.Array(ApiKey))
      .annotate(OpenApi.Summary, "List the account's restricted keys")
      .annotate(
        OpenApi.Description,
        "Every restricted key of the account, newest first, revoked ones included (`active: false`): prefix, " +
          "masked key, scopes, rate limit, creation and last use. Never the secret. The primary key is at /me."
      )
  )
  .add(
    HttpApiEndpoint.del("revoke")`/${id}`
      .addSuccess(ApiKey)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Revoke a restricted key")
      .annotate(
        OpenApi.Description,
        "Deactivates the key: every API process refuses it (401) from this answer on. Revoking a revoked key " +
          "answers the same record. Another account's key, or the primary key (regenerate it instead), is a 404."
      )
  )
  .middleware(SessionAuth)
  .prefix("/api-keys")
  .annotate(OpenApi.Title, "API keys") {}
