import type { Server } from "node:http"
import { Effect, Layer } from "effect"

/**
 * Requests in flight in this process, and whether it is stopping (docs/operations.md: shutdown).
 * The envelope counts requests; readiness turns 503 while draining, so a load balancer stops
 * sending new ones; the drain waits for the count to reach zero before the server closes.
 *
 * Once it begins, the process takes no new work (docs/deployment.md "Shutdown": SIGTERM "stops accepting
 * connections"): the listeners it watches stop accepting connections, the envelope refuses a request that
 * arrives on a connection already open (503, except the probes) and answers every response with
 * `Connection: close`; only the requests already in flight run to their end. Without that, under steady
 * traffic the count never reached zero and every stop ran the whole grace period while serving new requests.
 */
export class Draining extends Effect.Service<Draining>()("Draining", {
  sync: () => {
    let inFlight = 0
    let stopping = false
    const servers = new Set<Server>()
    return {
      track: <A, E, R>(request: Effect.Effect<A, E, R>) =>
        Effect.acquireUseRelease(
          Effect.sync(() => inFlight++),
          () => request,
          () => Effect.sync(() => inFlight--)
        ),
      stopping: () => stopping,
      inFlight: () => inFlight,
      /** A listener to close when the drain begins (the public HTTP server: src/http/Server.ts). */
      watch: (server: Server) => {
        servers.add(server)
      },
      begin: () => {
        stopping = true
        // close() stops accepting and (Node ≥ 19) closes the idle kept-alive connections at once; the
        // connections with a request in flight stay open until it is answered, with `Connection: close`.
        // The platform's own close, later, finds it no longer listening and does not wait again.
        for (const server of servers) if (server.listening) server.close()
      }
    }
  }
}) {}

/**
 * Built after the HTTP server, so released before it: on shutdown it marks the process as stopping (which
 * closes the listener) and waits (up to `graceMs`) until every request in flight has been answered; only
 * then does the server close and interrupt what is left.
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
