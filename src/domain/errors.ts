import { Data, Effect, Either } from "effect"
import type { IllegalTransition } from "./lifecycle.ts"
export { IllegalTransition } from "./lifecycle.ts"

/** One problem with one input field; `field` is the path in the caller's words (each interface names its own). */
export interface FieldError {
  readonly field: string
  readonly message: string
}

/** The one wording of a field the operation does not declare (docs/api.md "Unknown fields"). */
export const unknownFieldMessage = (field: string) => `${field} is not a known field`

/**
 * The keys of an object checked by hand (not by a schema) that the operation does not declare, each
 * named by its path: the same 400 a schema-decoded body gives for one.
 */
export const unknownFields = (
  input: Readonly<Record<string, unknown>>,
  known: ReadonlyArray<string>,
  path: string
): Array<FieldError> =>
  Object.keys(input)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const field = `${path}.${key}`
      return { field, message: unknownFieldMessage(field) }
    })

/** Input that breaks a rule of the spec. Each interface names the first field; `errors` lists them all. */
export class ValidationFailed extends Data.TaggedError("ValidationFailed")<{
  readonly errors: ReadonlyArray<FieldError>
}> {
  static one(field: string, message: string) {
    return new ValidationFailed({ errors: [{ field, message }] })
  }
  override get message() {
    return this.errors.map((e) => e.message).join("; ")
  }
}

/** The resource does not exist in the caller's account (or belongs to another one: indistinguishable). */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {}

/** The request is well formed but the resource's state forbids it. */
export class Conflict extends Data.TaggedError("Conflict")<{ readonly code: string; readonly message: string }> {}

/** Well formed and allowed, but refused on its merits (card declined, card data rejected). */
export class Unprocessable extends Data.TaggedError("Unprocessable")<{
  readonly code: string
  readonly message: string
  readonly field?: string
  /** The transaction recorded for a refused charge, so the merchant can find it. */
  readonly transactionId?: string
}> {}

export class EmailAlreadyRegistered extends Data.TaggedError("EmailAlreadyRegistered")<{}> {
  // What the CLI prints; the API answers its own 409 (CONTRACT §3).
  override get message() {
    return "email is already registered"
  }
}

export class InvalidCredentials extends Data.TaggedError("InvalidCredentials")<{}> {}

/** A feature switched off by configuration (signup, sandbox): to the caller, as if it did not exist. */
export class Disabled extends Data.TaggedError("Disabled")<{}> {}

/**
 * A payment provider (acquirer, PSP, bank) could not answer; nothing was charged or moved, and the
 * same request may be retried after `retryAfterSeconds`.
 */
export class ProviderUnavailable extends Data.TaggedError("ProviderUnavailable")<{
  readonly provider: string
  readonly message: string
  readonly retryAfterSeconds: number
}> {}

/**
 * Too many requests of one kind in a rolling minute, counted for every process together (a payment
 * link's visits: docs/payment-links.md "Visits per minute"); the same request may be made again after
 * `retryAfterSeconds`.
 */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly code: string
  readonly message: string
  readonly retryAfterSeconds: number
}> {}

export type DomainError =
  | ValidationFailed
  | NotFound
  | Conflict
  | Unprocessable
  | EmailAlreadyRegistered
  | InvalidCredentials
  | Disabled
  | ProviderUnavailable
  | IllegalTransition
  | RateLimited

/** A decoder's answer as an effect: its value, or ValidationFailed naming every broken field at once. */
export const validated = <A>(decoded: Either.Either<A, ReadonlyArray<FieldError>>) =>
  Either.match(decoded, {
    onLeft: (errors) => Effect.fail(new ValidationFailed({ errors })),
    onRight: (value) => Effect.succeed(value)
  })
