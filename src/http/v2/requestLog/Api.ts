import { DashboardMode } from "../../dashboard/mode.ts"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Uuid } from "../../../domain/fields.ts"
import { ScopeResource } from "../../shared/annotations.ts"
import { BadRequest } from "../../shared/errors.ts"
import { KeysetCursor, PageLimit } from "../../shared/keysetCursor.ts"
import { ApiKeyAuth, SessionAuth } from "../../shared/security.ts"

export const RequestLogQuery = Schema.Struct({
  keyId: Schema.optional(Uuid.annotations({ description: "only the requests of this API key (its id)" })),
  limit: Schema.optional(PageLimit),
  cursor: Schema.optional(KeysetCursor("request_log"))
})

export const LoggedRequest = Schema.Struct({
  id: Schema.String,
  keyId: Schema.String.annotations({ description: "the id of the API key that made it" }),
  method: Schema.String,
  path: Schema.String.annotations({ description: "path and query; credentials in the query are `[REDACTED]`" }),
  status: Schema.Int,
  latencyMs: Schema.Int,
  requestId: Schema.String.annotations({ description: "the `X-Request-Id` the response carried" }),
  idempotencyKey: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String).annotations({
    description: "the request body with card numbers, CVV, tokens and secrets replaced by `[REDACTED]`"
  }),
  createdAt: Schema.Date
}).annotations({ identifier: "LoggedRequest" })

export const RequestLogPage = Schema.Struct({
  requests: Schema.Array(LoggedRequest),
  nextCursor: Schema.NullOr(Schema.String)
})

const list = HttpApiEndpoint.get("list", "/")
  .setUrlParams(RequestLogQuery)
  .addSuccess(RequestLogPage)
  .addError(BadRequest)
  .annotate(OpenApi.Summary, "List the requests made with the account's API keys")
  .annotate(
    OpenApi.Description,
    "The requests of the account's API keys (both interfaces), newest first, kept REQUEST_LOG_RETENTION_DAYS " +
      "(default 7): method, path, status, latency, request id, Idempotency-Key and the body with card numbers, " +
      "CVV, tokens and secrets redacted. Written in batches a fraction of a second after the response."
  )

export class RequestLogApi extends HttpApiGroup.make("requestLog")
  .annotate(ScopeResource, "logs")
  .add(list)
  .middleware(ApiKeyAuth)
  .prefix("/request-log")
  .annotate(OpenApi.Title, "Request log") {}

export class DashboardRequestLogApi extends HttpApiGroup.make("dashboardRequestLog")
  .add(list)
  .middleware(DashboardMode)
  .middleware(SessionAuth)
  .prefix("/dashboard/request-log")
  .annotate(OpenApi.Title, "Dashboard request log") {}
