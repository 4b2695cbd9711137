import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, FiberRef, Layer, Option, Redacted } from "effect"
import { CurrentMode } from "../../ports/Modes.ts"
import type { Principal } from "../../domain/account.ts"
import { Metrics } from "../../ports/Metrics.ts"
import { AppConfig } from "../../config/AppConfig.ts"
import { KeyUsage } from "../../app/KeyUsage.ts"
import { looksLikeApiKey } from "../../domain/apiKey.ts"
import { ApiKeyHasher } from "../../ports/ApiKeyHasher.ts"
import { KeyAdmission, secondsUntilReset } from "../../ports/Admission.ts"
import { SessionTokens } from "../../ports/SessionTokens.ts"
import { AccountRepo } from "../../ports/AccountRepo.ts"
import { GatewayApi } from "../Api.ts"
import { Forbidden, NotFound, TooManyRequests, Unauthorized } from "./errors.ts"
import { routeTable } from "./routes.ts"
import { requiredScope } from "./scopes.ts"
import { ApiKeyAuth, SessionAuth, SignupGate } from "./security.ts"
import { fn } from "../../spans.ts"
import { Ids } from "../../ports/Ids.ts"
import { IdempotencyStore } from "../../ports/IdempotencyStore.ts"
import { claimMade, claimToMake, fingerprintKey } from "./idempotency.ts"
import { orderNamed } from "./paysOrder.ts"
import { isUuid } from "../../domain/uuid.ts"
import { RequestNote } from "./requestNote.ts"

const routes = routeTable(GatewayApi)

const invalidKey = Unauthorized.of({ message: "X-Api-Key is missing or invalid", code: "invalid_api_key" })

/**
 * The API-key check both interfaces share: the key by its digest, the route's scope, the key's
 * rolling rate-limit window (CONTRACT §5: /api and /public/v1 count in one window), in that order.
 */
export class KeyAuthentication extends Context.Tag("KeyAuthentication")<
  KeyAuthentication,
  {
    readonly authenticate: (
      key: string,
      invalid: Unauthorized
    ) => Effect.Effect<
      Principal,
      Unauthorized | Forbidden | TooManyRequests,
      HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest
    >
  }
>() {}

export const KeyAuthenticationLive = Layer.effect(
  KeyAuthentication,
  Effect.gen(function* () {
    const admission = yield* KeyAdmission
    const hasher = yield* ApiKeyHasher
    const usage = yield* KeyUsage
    const metrics = yield* Metrics
    const ids = yield* Ids
    const store = yield* IdempotencyStore
    const fingerprint = fingerprintKey(yield* AppConfig)
    return KeyAuthentication.of({
      authenticate: fn("KeyAuthentication.authenticate")(function* (key: string, invalid: Unauthorized) {
        // Anything not shaped like a key never reaches the database.
        if (!looksLikeApiKey(key)) return yield* Effect.fail(invalid)
        const { params, route } = yield* HttpRouter.RouteContext
        const template = routes.route(route.method, route.path)
        const needed = requiredScope(route.method, template?.resource ?? "other")
        const claim = template?.idempotent
          ? yield* claimToMake(fingerprint, yield* HttpServerRequest.HttpServerRequest, ids.next)
          : undefined
        const order = template?.paysOrder === undefined ? undefined : yield* orderNamed(template.paysOrder)
        // The record the route reads by its id; anything that is not a UUID is left to the route's schema.
        const reads = template?.readsAhead
        const id = reads === undefined ? undefined : params[reads.param]
        const read = reads !== undefined && id !== undefined && isUuid(id) ? { kind: reads.kind, id } : undefined
        // Key, scope, rate-limit slot, idempotency claim and the order paid or record read in one round trip
        // (a refused scope takes no slot, a refused slot makes no claim and reads nothing).
        const admitted = yield* admission.admit(hasher.digest(key), needed, claim, order, read)
        if (Option.isNone(admitted)) return yield* Effect.fail(invalid)
        if (admitted.value._tag === "Forbidden") {
          return yield* Effect.fail(
            Forbidden.of({ message: `this key lacks the scope ${needed}`, code: "insufficient_permissions" })
          )
        }
        const { decision, principal } = admitted.value
        const resetSeconds = secondsUntilReset(decision)
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.succeed(
            HttpServerResponse.setHeaders(response, {
              "ratelimit-limit": String(decision.limit),
              "ratelimit-remaining": String(decision.remaining),
              "ratelimit-reset": String(resetSeconds),
              ...(decision.allowed ? {} : { "retry-after": String(resetSeconds) })
            })
          )
        )
        metrics.rateLimitDecisions.inc({ outcome: decision.allowed ? "allowed" : "rejected" })
        if (!decision.allowed) {
          return yield* Effect.fail(
            TooManyRequests.of({
              message: `rate limit of ${decision.limit} requests per minute exceeded; retry in ${resetSeconds} s`,
              code: "rate_limit_exceeded",
              retryAfter: resetSeconds
            })
          )
        }
        if (claim !== undefined && admitted.value.claim !== undefined) {
          yield* claimMade(store, principal.accountId, claim, admitted.value.claim)
        }
        yield* usage.mark(principal.keyId)
        // The rest of the request runs in the key's mode: its tenant's rails (docs/decisions.md
        // "Test and live modes"). Set on the request's fiber, which the handler runs on next.
        yield* FiberRef.set(CurrentMode, principal.mode)
        // For the request log, written once the response is known (envelope.ts).
        const note = yield* Effect.serviceOption(RequestNote)
        if (note._tag === "Some") note.value.key = { accountId: principal.accountId, keyId: principal.keyId }
        return principal
      })
    })
  })
)

/** `X-Api-Key` on /api. A missing header arrives as an empty string. */
export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.map(KeyAuthentication, (auth) =>
    ApiKeyAuth.of({ apiKey: (token) => auth.authenticate(Redacted.value(token), invalidKey) })
  )
)

export const SessionAuthLive = Layer.effect(
  SessionAuth,
  Effect.gen(function* () {
    const tokens = yield* SessionTokens
    const accounts = yield* AccountRepo
    const invalidToken = Unauthorized.of({ message: "access token is invalid", code: "invalid_token" })
    return SessionAuth.of({
      bearer: fn("SessionAuth.bearer")(function* () {
        // HttpApiSecurity.bearer strips 7 characters whatever they are: read the header ourselves.
        const request = yield* HttpServerRequest.HttpServerRequest
        const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(
          request.headers["authorization"] ?? ""
        )
        if (!match) {
          return yield* Effect.fail(
            Unauthorized.of({
              message: "Authorization: Bearer <accessToken> is missing or malformed",
              code: "invalid_token"
            })
          )
        }
        const check = yield* tokens.check(match[1]!)
        switch (check._tag) {
          case "Valid":
            // A correctly signed token outlives nothing it names: the account deleted since login makes
            // it invalid (401), not a route that answers 404 for the account's own records.
            if (Option.isNone(yield* accounts.findById(check.accountId))) return yield* Effect.fail(invalidToken)
            return { accountId: check.accountId }
          case "Expired":
            return yield* Effect.fail(
              Unauthorized.of({ message: "access token has expired; log in again", code: "expired_token" })
            )
          case "Invalid":
            return yield* Effect.fail(invalidToken)
        }
      })
    })
  })
)

export const SignupGateLive = Layer.effect(
  SignupGate,
  Effect.map(AppConfig, (config) =>
    config.signupEnabled
      ? Effect.void
      : Effect.fail(NotFound.of({ message: "Route POST /api/auth/signup not found", code: "route_not_found" }))
  )
)
