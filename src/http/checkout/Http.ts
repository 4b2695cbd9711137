import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Checkout } from "../../app/Checkout.ts"
import { GatewayApi } from "../Api.ts"
import { NotFound } from "../shared/errors.ts"
import { CHECKOUT_CSS, CHECKOUT_JS } from "./assets.ts"
import { checkoutPage } from "./page.ts"
import { CHECKOUT_SECURITY_HEADERS } from "./headers.ts"
import { invalidLinkResponse } from "./invalidLink.ts"
import { prefersHtml } from "./negotiate.ts"
import { rendered } from "../shared/domainErrors.ts"

const notFound = NotFound.of({ message: "checkout not found", code: "not_found" })

export const CheckoutHttp = HttpApiBuilder.group(GatewayApi, "checkout", (handlers) =>
  Effect.gen(function* () {
    const checkout = yield* Checkout
    const view = (token: string) => checkout.view(token).pipe(Effect.mapError(() => notFound))
    return handlers
      .handle("page", ({ path, request }) =>
        Effect.map(view(path.token), (v) =>
          HttpServerResponse.text(checkoutPage(v, `/checkout/${encodeURIComponent(path.token)}/status`), {
            contentType: "text/html; charset=utf-8",
            headers: { ...CHECKOUT_SECURITY_HEADERS, "cache-control": "no-store" }
          })
        ).pipe(
          // A buyer's browser gets a page that says what to do; an API client keeps the JSON envelope.
          Effect.catchAll((error) =>
            prefersHtml(request.headers["accept"]) ? Effect.succeed(invalidLinkResponse()) : Effect.fail(error)
          )
        )
      )
      .handle("status", ({ path }) =>
        Effect.map(view(path.token), (v) =>
          HttpServerResponse.unsafeJson({ status: v.state }, { headers: { "cache-control": "no-store" } })
        )
      )
      .handle("payByCard", ({ path, payload }) =>
        checkout.payByCard(path.token, payload).pipe(
          Effect.map((v) =>
            HttpServerResponse.unsafeJson(
              { status: v.state, reason: v.reason ?? null },
              { headers: { "cache-control": "no-store" } }
            )
          ),
          rendered
        )
      )
      .handle("script", () =>
        Effect.succeed(
          HttpServerResponse.text(CHECKOUT_JS, {
            contentType: "text/javascript; charset=utf-8",
            headers: { ...CHECKOUT_SECURITY_HEADERS, "cache-control": "public, max-age=300" }
          })
        )
      )
      .handle("style", () =>
        Effect.succeed(
          HttpServerResponse.text(CHECKOUT_CSS, {
            contentType: "text/css; charset=utf-8",
            headers: { ...CHECKOUT_SECURITY_HEADERS, "cache-control": "public, max-age=300" }
          })
        )
      )
  })
)
