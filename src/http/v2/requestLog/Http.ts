import { dashboardTenant } from "../../dashboard/tenant.ts"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { RequestLogs } from "../../../app/RequestLogs.ts"
import type { AccountId } from "../../../domain/ids.ts"
import { GatewayApi } from "../../Api.ts"
import { decodeKeysetCursor, encodeKeysetCursor } from "../../shared/keysetCursor.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import type { RequestLogQuery } from "./Api.ts"

const listFor =
  <R>(logs: RequestLogs, account: Effect.Effect<AccountId, never, R>) =>
  ({ urlParams: q }: { readonly urlParams: typeof RequestLogQuery.Type }) =>
    Effect.gen(function* () {
      const page = yield* logs.list(
        yield* account,
        { keyId: q.keyId },
        q.limit ?? 20,
        q.cursor === undefined ? undefined : decodeKeysetCursor("request_log", q.cursor)
      )
      return {
        requests: page.rows.map((r) => ({
          id: r.id,
          keyId: r.keyId,
          method: r.method,
          path: r.path,
          status: r.status,
          latencyMs: r.latencyMs,
          requestId: r.requestId,
          idempotencyKey: r.idempotencyKey,
          body: r.body,
          createdAt: r.at
        })),
        nextCursor: page.next === null ? null : encodeKeysetCursor("request_log", page.next)
      }
    })

export const RequestLogHttp = HttpApiBuilder.group(GatewayApi, "requestLog", (handlers) =>
  Effect.map(RequestLogs, (logs) =>
    handlers.handle(
      "list",
      listFor(
        logs,
        Effect.map(CurrentPrincipal, (p) => p.accountId)
      )
    )
  )
)

export const DashboardRequestLogHttp = HttpApiBuilder.group(GatewayApi, "dashboardRequestLog", (handlers) =>
  Effect.gen(function* () {
    return handlers.handle("list", listFor(yield* RequestLogs, yield* dashboardTenant))
  })
)
