import { HttpApi, HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/**
 * The page's security headers, as every HTML page of the service has (checkout/headers.ts, dashboard/web.ts):
 * it is served from the dashboard's origin, whose session token sits in sessionStorage, and its "Test
 * Request" client takes an API key, so no other site may frame it and its scripts talk to this origin only.
 * Scalar's script is inline (HttpApiScalar's page), so scripts themselves are not restricted here.
 */
const REFERENCE_HEADERS = {
  "content-security-policy":
    "frame-ancestors 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; connect-src 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

/**
 * The API reference page at /docs (docs/api.md "Reference"), built on its first request.
 * HttpApiScalar inlines the Scalar script (3.4 MB of source) in the module that serves it: imported at
 * start, every process held it in its heap for a page few open (issue 22 §3, docs/performance.md
 * "Memory of npm start"). The route is the same; the module that holds the script loads on first use.
 */
export const ReferenceLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const api = yield* HttpApi.Api
    const page = yield* Effect.cached(
      Effect.flatMap(
        Effect.promise(() => import("./referencePage.ts")),
        (module) => module.referencePage(api)
      )
    )
    yield* router.get("/docs", Effect.map(page, HttpServerResponse.setHeaders(REFERENCE_HEADERS)))
  })
)
