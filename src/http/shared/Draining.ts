import { Effect, Layer } from "effect"

/**
 * Requests in flight in this process, and whether it is stopping (docs/operations.md: shutdown).
 * The envelope counts requests; readiness turns 503 while draining, so a load balancer stops
 * sending new ones; the drain waits for the count to reach zero before the server closes.
 */
export class Draining extends Effect.Service<Draining>()("Draining", {
  sync: () => {
    let inFlight = 0
    let stopping = false
    return {
      track: <A, E, R>(request: Effect.Effect<A, E, R>) =>
        Effect.acquireUseRelease(
          Effect.sync(() => inFlight++),
          () => request,
          () => Effect.sync(() => inFlight--)
        ),
      stopping: () => stopping,
      inFlight: () => inFlight,
      begin: () => {
        stopping = true
      }
    }
  }
}) {}

/**
 * Built after the HTTP server, so released before it: on shutdown it marks the process as stopping and
 * waits (up to `graceMs`) until every request in flight has been answered; only then does the server
 * close and interrupt what is left.
 */
export const DrainOnShutdown = (graceMs: number) =>
  Layer.scopedDiscard(
    Effect.flatMap(Draining, (draining) =>
      Effect.addFinalizer(() =>
        Effect.gen(function* () {
          draining.begin()
          const deadline = Date.now() + graceMs
          while (draining.inFlight() > 0 && Date.now() < deadline) yield* Effect.sleep("50 millis")
          if (draining.inFlight() > 0) {
            yield* Effect.logWarning(`shutdown: ${draining.inFlight()} requests still running after the drain`)
          }
        })
      )
    )
  )
