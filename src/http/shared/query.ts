import { Effect } from "effect"
import { BadRequest, type HttpError } from "./errors.ts"
import type { RouteTemplate } from "./routes.ts"

/** The key of /public/v1 may come in the query on every route (CONTRACT-v1 §1). */
const V1_KEY = "api_token"

/**
 * A query parameter that the route does not declare is a 400 naming it, on every route of both
 * interfaces (docs/api.md "Lists"): a misspelt filter (`?stauts=PAID`) silently ignored answers with
 * everything, which reads as if the filter had matched. Checked before any route, from the route
 * table, so no handler can forget it. Pages outside the API (checkout, documents, /docs) are left
 * alone: links shared with buyers collect tracking parameters.
 */
export const acceptQuery = (
  route: RouteTemplate | undefined,
  method: string,
  url: string
): Effect.Effect<void, HttpError> => {
  if (route === undefined || route.method !== method || route.query === undefined) return Effect.void
  if (!route.path.startsWith("/api/") && !route.path.startsWith("/public/v1/")) return Effect.void
  const search = url.includes("?") ? url.slice(url.indexOf("?") + 1) : ""
  if (search === "") return Effect.void
  const known = route.errorBody === "successFlag" ? [...route.query, V1_KEY] : route.query
  const unknown = [...new Set(new URLSearchParams(search).keys())].filter((name) => !known.includes(name))
  if (unknown.length === 0) return Effect.void
  // A name may be a card number (`?4556…=1`): the envelope's errorBody redacts it in the answer (docs/input.md).
  const errors = unknown.map((name) => ({ field: name, message: `${name} is not a known query parameter` }))
  return Effect.fail(BadRequest.of({ message: errors[0]!.message, code: "validation_failed", errors }))
}
