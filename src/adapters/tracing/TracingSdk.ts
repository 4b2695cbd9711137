import { NodeSdk } from "@effect/opentelemetry"
import type { ExportResult } from "@opentelemetry/core"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { redactUrl } from "../../http/shared/redact.ts"

/**
 * Credentials in URLs (`api_token`, a checkout's or a document's token) never leave in a span either: url.full,
 * url.path and url.query are redacted.
 */
const redacting = (inner: SpanExporter): SpanExporter => ({
  export: (spans: Array<ReadableSpan>, done: (result: ExportResult) => void) => {
    for (const span of spans) {
      const attributes = span.attributes as Record<string, unknown>
      for (const key of ["url.full", "url.path", "url.query"]) {
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
 * The OpenTelemetry SDK exporting over OTLP/HTTP to `url`. A module of its own, imported by TracingLive
 * only when an endpoint is set: the SDK and its exporters are ~15 MB of heap that a process exporting
 * nothing should not load (issue 22 §3, docs/performance.md "Memory of npm start").
 */
export const sdkLayer = (url: string, serviceName: string) =>
  NodeSdk.layer(() => ({
    resource: { serviceName },
    spanProcessor: new BatchSpanProcessor(
      redacting(new OTLPTraceExporter({ url: `${url.replace(/\/$/, "")}/v1/traces` })),
      { scheduledDelayMillis: 200 }
    )
  }))
