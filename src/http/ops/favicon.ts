import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/**
 * Browsers ask every host for /favicon.ico; without it each visit to /docs or a checkout page logs a
 * failed request (404). The gateway has no icon: "nothing here" (204), cacheable for a day.
 */
export const FaviconLive = HttpApiBuilder.Router.use((router) =>
  router.get(
    "/favicon.ico",
    Effect.succeed(HttpServerResponse.empty({ status: 204, headers: { "cache-control": "public, max-age=86400" } }))
  )
)
