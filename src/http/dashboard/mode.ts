import { HttpApiMiddleware, HttpServerRequest } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import { BadRequest } from "../shared/errors.ts"

/** The dashboard's mode (docs/dashboard.md "Mode"): test until live rails exist. */
export type DashboardModeName = "test" | "live"

export class CurrentMode extends Context.Tag("CurrentMode")<CurrentMode, DashboardModeName>() {}

/** The header every /api/dashboard route reads its mode from; absent means test. */
export const MODE_HEADER = "x-gateway-mode"

/**
 * `X-Gateway-Mode: test | live` on every /api/dashboard route. The data of this service is all test
 * data until the live-rails work lands (docs/dashboard.md "Mode"); `live` is then refused by name
 * instead of showing test money as if it were real.
 */
export class DashboardMode extends HttpApiMiddleware.Tag<DashboardMode>()("DashboardMode", {
  failure: BadRequest,
  provides: CurrentMode
}) {}

export const DashboardModeLive = Layer.succeed(
  DashboardMode,
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const raw = (request.headers[MODE_HEADER] ?? "test").trim().toLowerCase()
    if (raw === "test") return "test" as const
    const message =
      raw === "live" ? "live mode is not available yet: this gateway has test data only" : "must be test or live"
    return yield* Effect.fail(
      BadRequest.of({
        message: `X-Gateway-Mode ${message}`,
        code: raw === "live" ? "mode_unavailable" : "validation_failed",
        errors: [{ field: "X-Gateway-Mode", message }]
      })
    )
  })
)
