import { createServer } from "node:http"
import { Effect, Layer, Runtime } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { JobStats } from "../../jobs/JobStats.ts"
import { Metrics } from "../../ports/Metrics.ts"

/**
 * GET /metrics on its own listener, METRICS_HOST:METRICS_PORT (127.0.0.1:9464 by default), never on the
 * public one: the counters reveal volumes (charges, refunds, amounts by method) that are nobody's business
 * but the operator's (docs/operations.md "Metrics"). A plain node:http server: one route, no envelope,
 * no rate limit, no authentication — reaching the address is the permission. Every role starts it, the
 * worker included: its delivery, job and ledger-check metrics exist only in it (src/Roles.ts).
 */
export const MetricsServerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const metrics = yield* Metrics
    const jobStats = yield* JobStats
    const runtime = yield* Effect.runtime<never>()
    const scrape = jobStats.sample.pipe(Effect.catchAllCause(Effect.logWarning), Effect.zipRight(metrics.exposition))
    const server = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0]
      if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
        response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found: GET /metrics\n")
        return
      }
      Runtime.runPromise(runtime)(scrape).then(
        ({ body, contentType }) => {
          response.writeHead(200, { "content-type": contentType, "cache-control": "no-store" })
          response.end(request.method === "HEAD" ? undefined : body)
        },
        () => response.writeHead(500).end()
      )
    })
    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(config.metrics.port, config.metrics.host, () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const address = server.address()
    yield* Effect.logInfo(
      `metrics on http://${config.metrics.host}:${typeof address === "object" && address ? address.port : "?"}/metrics`
    )
  })
)
