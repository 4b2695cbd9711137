import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import type { Principal } from "../../domain/account.ts"
import type { AccountId } from "../../domain/ids.ts"
import { Forbidden, NotFound, TooManyRequests, Unauthorized } from "./errors.ts"

/** The caller of an API-key route: its account, key, scopes and rate limit. */
export class CurrentPrincipal extends Context.Tag("CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/** The account signed in with a login token (key-management routes). */
export class CurrentSession extends Context.Tag("CurrentSession")<
  CurrentSession,
  { readonly accountId: AccountId }
>() {}

/**
 * `X-Api-Key` on every /api route but login and key management: checks the key, its scopes and the
 * account's rolling rate-limit window, in that order.
 */
export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", {
  failure: Schema.Union(Unauthorized, Forbidden, TooManyRequests),
  provides: CurrentPrincipal,
  security: {
    apiKey: HttpApiSecurity.apiKey({ in: "header", key: "X-Api-Key" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "The account's secret key, `sk_live_…`; never send it from a browser"
      )
    )
  }
}) {}

/** `Authorization: Bearer <accessToken>` from POST /api/auth/login, for the key-management routes. */
export class SessionAuth extends HttpApiMiddleware.Tag<SessionAuth>()("SessionAuth", {
  failure: Unauthorized,
  provides: CurrentSession,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "HS256 JWT from POST /api/auth/login, valid 15 minutes")
    )
  }
}) {}

/** SIGNUP_ENABLED=false makes signup a route that does not exist, before its body is even read. */
export class SignupGate extends HttpApiMiddleware.Tag<SignupGate>()("SignupGate", {
  failure: NotFound
}) {}
