import { Effect, Match } from "effect"
import type * as Domain from "../../domain/errors.ts"
import type { DomainError } from "../../domain/errors.ts"
import { BadRequest, Conflict, NotFound, ServiceUnavailable, Unauthorized } from "../shared/errors.ts"

// The core names a few fields in its own words; v1 callers sent them under these names.
const FIELDS: Readonly<Record<string, string>> = { cardToken: "card_token" }
const field = (name: string) => FIELDS[name] ?? name
const words = (message: string) => message.replace(/\bcardToken\b/g, "card_token")

/**
 * The one place where the domain's typed errors become /public/v1 envelopes (CONTRACT-v1 §1: 422 is
 * for idempotency reuse only, so a refused refund is a 409 here). The envelope adds `success: false`.
 */
export const renderV1Error = Match.type<DomainError>().pipe(
  Match.tagsExhaustive({
    ValidationFailed: (e) =>
      BadRequest.of({
        message: words(e.errors[0]?.message ?? "invalid request"),
        code: "validation_failed",
        errors: e.errors.map((x) => ({ field: field(x.field), message: words(x.message) }))
      }),
    NotFound: (e) => NotFound.of({ message: words(e.message), code: "not_found" }),
    Conflict: (e) =>
      Conflict.of({
        message: e.message,
        code: e.code === "already_refunded" ? "not_refundable" : e.code
      }),
    Unprocessable: (e) => Conflict.of({ message: e.message, code: e.code }),
    EmailAlreadyRegistered: () => Conflict.of({ message: "email is already registered", code: "email_taken" }),
    InvalidCredentials: () =>
      Unauthorized.of({ message: "email or password is incorrect", code: "invalid_credentials" }),
    Disabled: () => NotFound.of({ message: "Route not found", code: "route_not_found" }),
    ProviderUnavailable: (e) =>
      ServiceUnavailable.of({ message: e.message, code: "provider_unavailable", retryAfter: e.retryAfterSeconds }),
    IllegalTransition: (e) => Conflict.of({ message: e.message, code: "invalid_state" })
  })
)

export type RenderedV1<E> =
  | (E extends Domain.ValidationFailed ? BadRequest : never)
  | (E extends Domain.NotFound | Domain.Disabled ? NotFound : never)
  | (E extends Domain.Conflict | Domain.EmailAlreadyRegistered | Domain.IllegalTransition | Domain.Unprocessable
      ? Conflict
      : never)
  | (E extends Domain.ProviderUnavailable ? ServiceUnavailable : never)
  | (E extends Domain.InvalidCredentials ? Unauthorized : never)

export const renderedV1 = <A, E extends DomainError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, RenderedV1<E>, R> => Effect.mapError(effect, (e) => renderV1Error(e) as RenderedV1<E>)
