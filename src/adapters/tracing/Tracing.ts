import { Config, Effect, Layer, Option } from "effect"

/**
 * OpenTelemetry tracing (docs/operations.md), on only when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans of
 * HTTP requests, application programs (`fn` of src/spans.ts), SQL statements, provider calls and jobs,
 * exported over OTLP/HTTP (JSON) as OTEL_SERVICE_NAME [payment-gateway]. Unset, no exporter runs and
 * the tracer is disabled, so that no span nobody reads is built (issue 10: a third of a charge's CPU),
 * and the SDK is not even loaded (src/adapters/tracing/TracingSdk.ts).
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
            Layer.unwrapEffect(
              Effect.map(
                Effect.promise(() => import("./TracingSdk.ts")),
                (sdk) => sdk.sdkLayer(url, serviceName)
              )
            )
        }
      )
  )
)
