import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import { GatewayApi } from "../Api.ts"
import { NotReady } from "./Api.ts"
import { Draining } from "../shared/Draining.ts"

/** How long /ready waits for the database before answering 503 (docs/deployment.md "Operations"). */
export const READY_WITHIN_SECONDS = 2

export const OpsHttp = HttpApiBuilder.group(GatewayApi, "ops", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const draining = yield* Draining
    return handlers
      .handle("index", () =>
        Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
          /text\/html/i.test(request.headers["accept"] ?? "")
            ? HttpServerResponse.redirect("/docs", { status: 302 })
            : HttpServerResponse.unsafeJson(
                { name: "Brazil Payment Gateway", docs: "/docs", openapi: "/openapi.json" },
                { headers: { link: '</docs>; rel="service-doc", </openapi.json>; rel="service-desc"' } }
              )
        )
      )
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        // Start-up applies the migrations before the server listens, so a reachable database is the last check.
        // Any failure of the probe, a defect of the pool included, means "not ready" (503), never a 500;
        // so does a process that is stopping (its load balancer should send no new requests).
        // Disconnected: at the deadline the answer is 503 at once, while the statement's interruption (its
        // cancel: @effect/sql-pg runs pg_cancel_backend through the same pool, which waits up to 5 s on a
        // database that does not answer) finishes in the background and ends by itself.
        Effect.gen(function* () {
          if (draining.stopping()) return yield* Effect.fail("stopping")
          yield* Effect.disconnect(sql`select 1`)
        }).pipe(
          Effect.timeout(Duration.seconds(READY_WITHIN_SECONDS)),
          Effect.as({ status: "ready" as const, database: "ok" as const }),
          Effect.catchAllCause(() =>
            Effect.succeed(
              HttpServerResponse.unsafeJson(
                new NotReady({ status: "not_ready", database: draining.stopping() ? "ok" : "unreachable" }),
                { status: 503, headers: { "retry-after": "1", "cache-control": "no-store" } }
              )
            )
          )
        )
      )
  })
)
