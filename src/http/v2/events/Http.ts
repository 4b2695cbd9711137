import { dashboardTenant } from "../../dashboard/tenant.ts"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Events } from "../../../app/Events.ts"
import type { AccountId } from "../../../domain/ids.ts"
import { GatewayApi } from "../../Api.ts"
import { decodeKeysetCursor, encodeKeysetCursor } from "../../shared/keysetCursor.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { rendered } from "../render.ts"
import { toListFilter } from "../listQuery.ts"
import type { EventsQuery } from "./Api.ts"

/** One set of handlers for both groups; only where the account comes from differs. */
const handlersFor = <R>(events: Events, account: Effect.Effect<AccountId, never, R>) => ({
  list: ({ urlParams: q }: { readonly urlParams: typeof EventsQuery.Type }) =>
    Effect.gen(function* () {
      const accountId = yield* account
      const filter = toListFilter(q)
      const limit = q.limit ?? 20
      const page = yield* events.list(
        accountId,
        {
          type: q.type,
          transactionId: q.transactionId,
          createdFrom: filter.createdFrom,
          createdBefore: filter.createdBefore
        },
        limit,
        q.cursor === undefined ? undefined : decodeKeysetCursor("events", q.cursor)
      )
      return {
        events: page.events,
        nextCursor: page.next === null ? null : encodeKeysetCursor("events", page.next)
      }
    }),
  get: ({ path }: { readonly path: { readonly eventId: string } }) =>
    Effect.flatMap(account, (accountId) => events.get(accountId, path.eventId)).pipe(rendered)
})

export const EventsHttp = HttpApiBuilder.group(GatewayApi, "events", (handlers) =>
  Effect.map(Events, (events) => {
    const h = handlersFor(
      events,
      Effect.map(CurrentPrincipal, (p) => p.accountId)
    )
    return handlers.handle("list", h.list).handle("get", h.get)
  })
)

export const DashboardEventsHttp = HttpApiBuilder.group(GatewayApi, "dashboardEvents", (handlers) =>
  Effect.gen(function* () {
    const h = handlersFor(yield* Events, yield* dashboardTenant)
    return handlers.handle("list", h.list).handle("get", h.get)
  })
)
