import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export const Health = Schema.Struct({ status: Schema.Literal("ok") })
export const Index = Schema.Struct({ name: Schema.String, docs: Schema.String, openapi: Schema.String })
export const Readiness = Schema.Struct({ status: Schema.Literal("ready"), database: Schema.Literal("ok") })
export class NotReady extends Schema.Class<NotReady>("NotReady")(
  { status: Schema.Literal("not_ready"), database: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

/**
 * Operational endpoints (CONTRACT §1): no authentication, not rate limited. GET /metrics is not among
 * them: it has its own listener (MetricsServer.ts, docs/operations.md "Metrics").
 */
export class OpsApi extends HttpApiGroup.make("ops")
  .add(
    HttpApiEndpoint.get("index", "/")
      .addSuccess(Index)
      .annotate(OpenApi.Summary, "Where the API reference is")
      .annotate(
        OpenApi.Description,
        "Points to the reference: a browser (Accept: text/html) is redirected to /docs (302); any other " +
          "client gets `{name, docs, openapi}` with the paths of the reference and of the OpenAPI document."
      )
  )
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Health)
      .annotate(OpenApi.Summary, "Liveness: the process answers")
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready")
      .addSuccess(Readiness)
      .addError(NotReady)
      .annotate(OpenApi.Summary, "Readiness: database reachable and migrations applied")
  )
  .annotate(OpenApi.Title, "Operations") {}
