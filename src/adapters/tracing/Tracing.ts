import { Config, Effect, Layer, Option } from "effect"

/** `new URL`, not `URL.parse`: Node 20 has no `URL.parse`. */
const isHttpUrl = (text: string) => {
  try {
    return /^https?:$/.test(new URL(text).protocol)
  } catch {
    return false
  }
}

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
      // An http(s) URL, checked here: the SDK's own refusal of another value is a stack trace, not a line
      // naming the variable (src/startupFailure.ts).
      endpoint: Config.option(
        Config.string("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(
          Config.validate({
            message: "OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL",
            validation: (url) => url.trim() === "" || isHttpUrl(url.trim())
          })
        )
      ),
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
