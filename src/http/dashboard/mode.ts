import { HttpApiMiddleware, HttpServerRequest } from "@effect/platform"
import { Context, Effect, FiberRef, Layer } from "effect"
import { CurrentMode as RailsMode, LiveRails } from "../../ports/Modes.ts"
import { BadRequest } from "../shared/errors.ts"

/** The dashboard's mode (docs/dashboard.md "Mode"): test until live rails exist. */
export type DashboardModeName = "test" | "live"

export class CurrentMode extends Context.Tag("CurrentMode")<CurrentMode, DashboardModeName>() {}

/** The header every /api/dashboard route reads its mode from; absent means test. */
export const MODE_HEADER = "x-gateway-mode"

/**
 * `X-Gateway-Mode: test | live` on every /api/dashboard route (docs/dashboard.md "Mode"). Live shows the
 * merchant's live tenant (docs/providers.md "Test and live modes") and is refused by name while the
 * operator has configured no live rail, rather than showing an empty book as if it were real. The mode
 * is also the one the payment ports run in for the request (a refund from the dashboard goes to the
 * rails of the transaction's mode).
 */
export class DashboardMode extends HttpApiMiddleware.Tag<DashboardMode>()("DashboardMode", {
  failure: BadRequest,
  provides: CurrentMode
}) {}

export const DashboardModeLive = Layer.effect(
  DashboardMode,
  Effect.map(LiveRails, (live) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const raw = (request.headers[MODE_HEADER] ?? "test").trim().toLowerCase()
      if (raw === "test" || (raw === "live" && live.missing.length === 0)) {
        const mode = raw as DashboardModeName
        yield* FiberRef.set(RailsMode, mode)
        return mode
      }
      const message = raw === "live" ? `live mode is not available: ${live.missing.join("; ")}` : "must be test or live"
      return yield* Effect.fail(
        BadRequest.of({
          message: `X-Gateway-Mode ${message}`,
          code: raw === "live" ? "mode_unavailable" : "validation_failed",
          errors: [{ field: "X-Gateway-Mode", message }]
        })
      )
    })
  )
)
