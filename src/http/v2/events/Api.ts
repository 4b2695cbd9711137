import { DashboardMode } from "../../dashboard/mode.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { EventRecord } from "../../../domain/events.ts"
import { Uuid } from "../../../domain/fields.ts"
import { ScopeResource } from "../../shared/annotations.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { KeysetCursor, PageLimit } from "../../shared/keysetCursor.ts"
import { ApiKeyAuth, SessionAuth } from "../../shared/security.ts"
import { created } from "../listQuery.ts"

export const EventsQuery = Schema.Struct({
  type: Schema.optional(
    Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)).annotations({
      description: "the event's name, e.g. `transaction.paid`, `transaction.refused`, `withdraw.paid`"
    })
  ),
  transactionId: Schema.optional(Uuid.annotations({ description: "only the events of this transaction" })),
  ...created,
  limit: Schema.optional(PageLimit),
  cursor: Schema.optional(KeysetCursor("events"))
})

export const EventsPage = Schema.Struct({
  events: Schema.Array(EventRecord),
  nextCursor: Schema.NullOr(Schema.String).annotations({ description: "the next page's `cursor`; null on the last" })
})

const eventId = HttpApiSchema.param("eventId", Uuid)

const list = HttpApiEndpoint.get("list", "/")
  .setUrlParams(EventsQuery)
  .addSuccess(EventsPage)
  .addError(BadRequest)
  .annotate(OpenApi.Summary, "List the account's events")
  .annotate(
    OpenApi.Description,
    "Every event of the account of the last 30 days, newest first, whether or not a webhook was registered: " +
      "filter by `type`, `transactionId` and period; " +
      "`payload` is the body its webhook delivery sends (the same bytes, parsed). Filter by `type` and period " +
      "(`createdFrom`, `createdTo`); pages of `limit` (1–100, default 20) follow `nextCursor`."
  )
const get = HttpApiEndpoint.get("get")`/${eventId}`
  .addSuccess(EventRecord)
  .addError(BadRequest)
  .addError(NotFound)
  .annotate(OpenApi.Summary, "Get one event")
  .annotate(OpenApi.Description, "One event of the last 30 days with its payload; another account's id is a 404.")

export class EventsApi extends HttpApiGroup.make("events")
  .annotate(ScopeResource, "events")
  .add(list)
  .add(get)
  .middleware(ApiKeyAuth)
  .prefix("/events")
  .annotate(OpenApi.Title, "Events") {}

/** The same, for the web dashboard: the login token, never an API key (issue 20 §1). */
export class DashboardEventsApi extends HttpApiGroup.make("dashboardEvents")
  .add(list)
  .add(get)
  .middleware(DashboardMode)
  .middleware(SessionAuth)
  .prefix("/dashboard/events")
  .annotate(OpenApi.Title, "Dashboard events") {}
