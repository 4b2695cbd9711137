import { HttpApiBuilder, HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Either } from "effect"
import { loadBundle } from "./bundle.ts"

/**
 * A strict policy for the dashboard (docs/dashboard.md "Security"): scripts and styles from this origin
 * only (no inline, no third party), calls to this origin only, no framing.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

const SECURITY = {
  "content-security-policy": DASHBOARD_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

/**
 * /dashboard and its client-side routes answer the page (never cached: it names the current assets);
 * /dashboard/assets/<name-hash>.<ext> answer the bundle's files, cached for a year (their names change
 * with their content). The bundle is built once per process, started as the server starts.
 */
export const DashboardWebLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    // A copy of the service without dashboard/ (or a failed build) serves the API all the same: the
    // dashboard's routes answer 503 and the reason is logged once.
    const bundle = yield* Effect.cached(
      Effect.tryPromise(loadBundle).pipe(
        Effect.tapError((e) => Effect.logWarning("the web dashboard is unavailable", e.cause)),
        Effect.either
      )
    )
    yield* Effect.forkDaemon(bundle)
    // Every answer carries the security headers (docs/dashboard.md), the refusals too.
    const unavailable = HttpServerResponse.text("dashboard unavailable", {
      status: 503,
      headers: { ...SECURITY, "cache-control": "no-store" }
    })
    const index = Effect.map(bundle, (b) =>
      Either.isLeft(b)
        ? unavailable
        : HttpServerResponse.text(b.right.html, {
            contentType: "text/html; charset=utf-8",
            headers: { ...SECURITY, "cache-control": "no-cache" }
          })
    )
    yield* router.get("/dashboard", index)
    yield* router.get(
      "/dashboard/assets/:name",
      Effect.gen(function* () {
        const { name } = yield* HttpRouter.params
        const built = yield* bundle
        if (Either.isLeft(built)) return unavailable
        const asset = built.right.assets.get(name ?? "")
        if (!asset)
          return HttpServerResponse.empty({ status: 404, headers: { ...SECURITY, "cache-control": "no-store" } })
        return HttpServerResponse.uint8Array(asset.body, {
          contentType: asset.contentType,
          headers: { ...SECURITY, "cache-control": "public, max-age=31536000, immutable" }
        })
      })
    )
    yield* router.get("/dashboard/*", index)
  })
)
