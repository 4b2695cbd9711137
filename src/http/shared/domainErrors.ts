import { Effect, Match } from "effect"
import type * as Domain from "../../domain/errors.ts"
import type { DomainError } from "../../domain/errors.ts"
import {
  BadRequest,
  Conflict,
  NotFound,
  ServiceUnavailable,
  TooManyRequests,
  Unauthorized,
  UnprocessableEntity
} from "./errors.ts"

/**
 * The default rendering of the domain's typed errors as HTTP envelopes (the /api words; v1/render.ts
 * adjusts it for /public/v1). Handlers end with
 * `Effect.mapError(renderDomainError)`; the global envelope middleware then writes them.
 */
export const renderDomainError = Match.type<DomainError>().pipe(
  Match.tagsExhaustive({
    ValidationFailed: (e) =>
      BadRequest.of({
        message: e.errors[0]?.message ?? "invalid request",
        code: "validation_failed",
        errors: e.errors
      }),
    NotFound: (e) => NotFound.of({ message: e.message, code: "not_found" }),
    Conflict: (e) => Conflict.of({ message: e.message, code: e.code }),
    Unprocessable: (e) =>
      UnprocessableEntity.of({
        message: e.message,
        code: e.code,
        ...(e.field ? { errors: [{ field: e.field, message: e.message }] } : {}),
        ...(e.transactionId ? { transactionId: e.transactionId } : {})
      }),
    EmailAlreadyRegistered: () => Conflict.of({ message: "email is already registered", code: "email_taken" }),
    InvalidCredentials: () =>
      Unauthorized.of({ message: "email or password is incorrect", code: "invalid_credentials" }),
    Disabled: () => NotFound.of({ message: "Route not found", code: "route_not_found" }),
    ProviderUnavailable: (e) =>
      ServiceUnavailable.of({ message: e.message, code: "provider_unavailable", retryAfter: e.retryAfterSeconds }),
    IllegalTransition: (e) => Conflict.of({ message: e.message, code: "invalid_state" }),
    RateLimited: (e) => TooManyRequests.of({ message: e.message, code: e.code, retryAfter: e.retryAfterSeconds })
  })
)

/** The envelope each domain error becomes, so that an endpoint declares exactly what it can answer. */
export type Rendered<E> =
  | (E extends Domain.ValidationFailed ? BadRequest : never)
  | (E extends Domain.NotFound | Domain.Disabled ? NotFound : never)
  | (E extends Domain.Conflict | Domain.EmailAlreadyRegistered | Domain.IllegalTransition ? Conflict : never)
  | (E extends Domain.ProviderUnavailable ? ServiceUnavailable : never)
  | (E extends Domain.Unprocessable ? UnprocessableEntity : never)
  | (E extends Domain.InvalidCredentials ? Unauthorized : never)
  | (E extends Domain.RateLimited ? TooManyRequests : never)

/** `effect.pipe(rendered)`: maps every domain failure of a handler to its envelope. */
export const rendered = <A, E extends DomainError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Rendered<E>, R> => Effect.mapError(effect, (e) => renderDomainError(e) as Rendered<E>)
