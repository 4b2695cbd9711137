import { NodeSdk } from "@effect/opentelemetry"
import type { ExportResult } from "@opentelemetry/core"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Config, Effect, Layer, Option } from "effect"
import { redactUrl } from "../../http/shared/redact.ts"

/** Credentials in URLs (`api_token`) never leave in a span either: url.full and url.query are redacted. */
const redacting = (inner: SpanExporter): SpanExporter => ({
  export: (spans: Array<ReadableSpan>, done: (result: ExportResult) => void) => {
    for (const span of spans) {
      const attributes = span.attributes as Record<string, unknown>
      for (const key of ["url.full", "url.query"]) {
        const value = attributes[key]
        if (typeof value === "string") attributes[key] = redactUrl(key === "url.query" ? `?${value}` : value)
      }
    }
    inner.export(spans, done)
  },
  shutdown: () => inner.shutdown(),
  ...(inner.forceFlush ? { forceFlush: () => inner.forceFlush!() } : {})
})

/**
 * OpenTelemetry tracing (docs/operations.md), on only when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans of
 * HTTP requests, application programs (`fn` of src/spans.ts), SQL statements, provider calls and jobs,
 * exported over OTLP/HTTP (JSON) as OTEL_SERVICE_NAME [payment-gateway]. Unset, no exporter runs and
 * the tracer is disabled, so that no span nobody reads is built (issue 10: a third of a charge's CPU).
 */
export const TracingLive = Layer.unwrapEffect(
  Effect.map(
    Config.all({
      endpoint: Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")),
      serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("payment-gateway"))
    }),
    ({ endpoint, serviceName }) =>
      Option.match(
        Option.filter(endpoint, (url) => url.trim() !== ""),
        {
          onNone: () => Layer.setTracerEnabled(false),
          onSome: (url) =>
            NodeSdk.layer(() => ({
              resource: { serviceName },
              spanProcessor: new BatchSpanProcessor(
                redacting(new OTLPTraceExporter({ url: `${url.replace(/\/$/, "")}/v1/traces` })),
                { scheduledDelayMillis: 200 }
              )
            }))
        }
      )
  )
)
