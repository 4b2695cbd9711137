import { NodeSdk } from "@effect/opentelemetry"
import type { ExportResult } from "@opentelemetry/core"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { holdsCardOrSecret, REDACTED, redactPans, redactUrl } from "../../http/shared/redact.ts"

/**
 * Headers whose value a span keeps (the platform copies every header of a request it serves or sends as
 * `http.request.header.*` and `http.response.header.*`): the ones that describe the exchange. Any other
 * header's value is `[REDACTED]`, the name kept: a merchant's own header may carry a card number or a CVV,
 * a provider's a merchant key (Cielo's `MerchantKey`), which no pattern would recognise. A kept value (an
 * Idempotency-Key, a User-Agent), as any other string attribute, is redacted whole when it holds a card number
 * or a secret, and any other number that may be a card number in it as in any text (redact.ts).
 */
const KEPT_HEADERS = new Set([
  "accept",
  "accept-encoding",
  "allow",
  "connection",
  "content-encoding",
  "content-length",
  "content-type",
  "date",
  "host",
  "idempotency-key",
  "idempotent-replayed",
  "retry-after",
  "traceparent",
  "transfer-encoding",
  "user-agent",
  "x-request-id"
])

const HEADER = /^http\.(?:request|response)\.header\.(.+)$/

/** An attribute's value as it may leave the process. */
const exported = (key: string, value: string) => {
  if (key === "url.full" || key === "url.path") return redactUrl(value)
  if (key === "url.query") return redactUrl(`?${value}`).slice(1)
  const header = HEADER.exec(key)?.[1]
  if (header !== undefined && !KEPT_HEADERS.has(header.toLowerCase())) return REDACTED
  return holdsCardOrSecret(value) ? REDACTED : redactPans(value)
}

const scrub = (attributes: Record<string, unknown>) => {
  for (const key in attributes) {
    const value = attributes[key]
    if (typeof value === "string") attributes[key] = exported(key, value)
  }
}

/**
 * No span leaves with a credential or a card number (docs/decisions.md "Card data in the gateway's copies"):
 * url.full, url.path and url.query as the request log keeps them (an `api_token`, a checkout's or a
 * document's token, a card number in the path or the query), headers by the list above, and any card number
 * in any other string attribute, the events' (an exception's message) included.
 */
const redacting = (inner: SpanExporter): SpanExporter => ({
  export: (spans: Array<ReadableSpan>, done: (result: ExportResult) => void) => {
    for (const span of spans) {
      scrub(span.attributes as Record<string, unknown>)
      for (const event of span.events) if (event.attributes !== undefined) scrub(event.attributes)
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
