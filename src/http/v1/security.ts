import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CurrentPrincipal } from "../shared/security.ts"
import { Forbidden, NotAcceptable, TooManyRequests, Unauthorized, UnsupportedMediaType } from "../shared/errors.ts"

/**
 * /public/v1 authentication (CONTRACT-v1 §1): the account's API key as `Authorization: Bearer <key>`
 * or as query `api_token=<key>`, the same keys, scopes and rate-limit window as /api. It first checks
 * the conventions that need no key (406 for an `Accept` without JSON, 415 for a non-JSON body), so
 * such requests never consume the window.
 */
export class ApiTokenAuth extends HttpApiMiddleware.Tag<ApiTokenAuth>()("ApiTokenAuth", {
  failure: Schema.Union(Unauthorized, Forbidden, TooManyRequests, NotAcceptable, UnsupportedMediaType),
  provides: CurrentPrincipal,
  security: {
    apiToken: HttpApiSecurity.apiKey({ in: "query", key: "api_token" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "The account's API key as a query parameter. It ends up in proxy logs and browser history: " +
          "prefer the Authorization header. The gateway redacts it from its own logs and metrics."
      )
    ),
    apiKeyBearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "`Authorization: Bearer sk_live_…`, the account's API key")
    )
  }
}) {}
