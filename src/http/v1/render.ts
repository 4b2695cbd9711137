import { Effect } from "effect"
import type * as Domain from "../../domain/errors.ts"
import type { DomainError } from "../../domain/errors.ts"
import {
  BadRequest,
  Conflict,
  type HttpError,
  NotFound,
  ServiceUnavailable,
  type TooManyRequests,
  Unauthorized
} from "../shared/errors.ts"
import { renderDomainError } from "../shared/domainErrors.ts"

// The core names a few fields in its own words; v1 callers sent them under these names.
const FIELDS: Readonly<Record<string, string>> = { cardToken: "card_token" }
const field = (name: string) => FIELDS[name] ?? name
const words = (message: string) => message.replace(/\bcardToken\b/g, "card_token")

/**
 * The one place where the domain's typed errors become /public/v1 envelopes: the default rendering
 * (shared/domainErrors.ts) in v1's words. CONTRACT-v1 §1 keeps 422 for idempotency reuse, so a refused
 * refund is a 409 here; a fully refunded transaction is `not_refundable`. The envelope adds
 * `success: false`.
 */
export const renderV1Error = (e: DomainError): HttpError => {
  switch (e._tag) {
    case "ValidationFailed":
      return BadRequest.of({
        message: words(e.errors[0]?.message ?? "invalid request"),
        code: "validation_failed",
        errors: e.errors.map((x) => ({ field: field(x.field), message: words(x.message) }))
      })
    case "NotFound":
      return NotFound.of({ message: words(e.message), code: "not_found" })
    case "Conflict":
      return Conflict.of({ message: e.message, code: e.code === "already_refunded" ? "not_refundable" : e.code })
    case "Unprocessable":
      return Conflict.of({ message: e.message, code: e.code })
    default:
      return renderDomainError(e)
  }
}

export type RenderedV1<E> =
  | (E extends Domain.ValidationFailed ? BadRequest : never)
  | (E extends Domain.NotFound | Domain.Disabled ? NotFound : never)
  | (E extends Domain.Conflict | Domain.EmailAlreadyRegistered | Domain.IllegalTransition | Domain.Unprocessable
      ? Conflict
      : never)
  | (E extends Domain.ProviderUnavailable ? ServiceUnavailable : never)
  | (E extends Domain.InvalidCredentials ? Unauthorized : never)
  | (E extends Domain.RateLimited ? TooManyRequests : never)

export const renderedV1 = <A, E extends DomainError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, RenderedV1<E>, R> => Effect.mapError(effect, (e) => renderV1Error(e) as RenderedV1<E>)
