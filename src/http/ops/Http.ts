import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Metrics } from "../../ports/Metrics.ts"
import { GatewayApi } from "../Api.ts"
import { NotReady } from "./Api.ts"
import { JobStats } from "../../jobs/JobStats.ts"

export const OpsHttp = HttpApiBuilder.group(GatewayApi, "ops", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const metrics = yield* Metrics
    const jobStats = yield* JobStats
    return handlers
      .handle("health", () => Effect.succeed({ status: "ok" as const }))
      .handle("ready", () =>
        // Start-up applies the migrations before the server listens, so a reachable database is the last check.
        sql`select 1`.pipe(
          Effect.as({ status: "ready" as const, database: "ok" as const }),
          Effect.timeout("2 seconds"),
          Effect.catchAll(() => Effect.fail(new NotReady({ status: "not_ready", database: "unreachable" })))
        )
      )
      .handle("metrics", () =>
        jobStats.sample.pipe(
          Effect.catchAllCause(Effect.logWarning),
          Effect.zipRight(Effect.map(metrics.exposition, (e) => e.body))
        )
      )
  })
)
