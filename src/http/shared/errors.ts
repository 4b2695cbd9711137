import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * The error envelope of CONTRACT §4: `{statusCode, error, message, code, errors?}`. One schema class
 * per status so that each endpoint documents exactly the failures it can answer with; as plain
 * `Schema.Class`es they serialise as their fields only (no `_tag`).
 */
const FieldError = Schema.Struct({ field: Schema.String, message: Schema.String })

const envelope = <S extends number, P extends string>(statusCode: S, phrase: P) => ({
  statusCode: Schema.Literal(statusCode),
  error: Schema.Literal(phrase),
  message: Schema.String,
  // Every error names its kind in `code` (docs/api.md "Errors"), 406 and 415 included.
  code: Schema.String,
  errors: Schema.optional(Schema.Array(FieldError))
})

type Details = {
  readonly message: string
  readonly code: string
  readonly errors?: ReadonlyArray<typeof FieldError.Type>
}

export class BadRequest extends Schema.Class<BadRequest>("BadRequest")(
  envelope(400, "Bad Request"),
  HttpApiSchema.annotations({ status: 400, description: "Invalid payload or parameter; `message` names the field" })
) {
  static of(details: Details) {
    return new BadRequest({ statusCode: 400, error: "Bad Request", ...details })
  }
}

export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  envelope(401, "Unauthorized"),
  HttpApiSchema.annotations({
    status: 401,
    description: "Missing or invalid credentials (`invalid_api_key`, `expired_token`, `invalid_token`)"
  })
) {
  static of(details: Details) {
    return new Unauthorized({ statusCode: 401, error: "Unauthorized", ...details })
  }
}

export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(
  envelope(403, "Forbidden"),
  HttpApiSchema.annotations({
    status: 403,
    description: "A restricted key used outside its scopes (`insufficient_permissions`)"
  })
) {
  static of(details: Details) {
    return new Forbidden({ statusCode: 403, error: "Forbidden", ...details })
  }
}

export class NotFound extends Schema.Class<NotFound>("NotFound")(
  envelope(404, "Not Found"),
  HttpApiSchema.annotations({ status: 404, description: "Not found, or it belongs to another account" })
) {
  static of(details: Details) {
    return new NotFound({ statusCode: 404, error: "Not Found", ...details })
  }
}

export class MethodNotAllowed extends Schema.Class<MethodNotAllowed>("MethodNotAllowed")(
  envelope(405, "Method Not Allowed"),
  HttpApiSchema.annotations({ status: 405 })
) {
  static of(details: Details) {
    return new MethodNotAllowed({ statusCode: 405, error: "Method Not Allowed", ...details })
  }
}

export class Conflict extends Schema.Class<Conflict>("Conflict")(
  envelope(409, "Conflict"),
  HttpApiSchema.annotations({ status: 409, description: "The resource's state forbids the operation" })
) {
  static of(details: Details) {
    return new Conflict({ statusCode: 409, error: "Conflict", ...details })
  }
}

export class PayloadTooLarge extends Schema.Class<PayloadTooLarge>("PayloadTooLarge")(
  envelope(413, "Payload Too Large"),
  HttpApiSchema.annotations({ status: 413, description: "The body is larger than 1 MiB (`payload_too_large`)" })
) {
  static of(details: Details) {
    return new PayloadTooLarge({ statusCode: 413, error: "Payload Too Large", ...details })
  }
}

export class UnprocessableEntity extends Schema.Class<UnprocessableEntity>("UnprocessableEntity")(
  { ...envelope(422, "Unprocessable Entity"), transactionId: Schema.optional(Schema.UUID) },
  HttpApiSchema.annotations({
    status: 422,
    description: "Refused on its merits: card declined, card data rejected, idempotency key reused"
  })
) {
  static of(details: Details & { readonly transactionId?: string }) {
    return new UnprocessableEntity({ statusCode: 422, error: "Unprocessable Entity", ...details })
  }
}

export class TooManyRequests extends Schema.Class<TooManyRequests>("TooManyRequests")(
  { ...envelope(429, "Too Many Requests"), retryAfter: Schema.Int },
  HttpApiSchema.annotations({
    status: 429,
    description: "Rate limit exceeded (`rate_limit_exceeded`); see `Retry-After`"
  })
) {
  static of(details: Details & { readonly retryAfter: number }) {
    return new TooManyRequests({ statusCode: 429, error: "Too Many Requests", ...details })
  }
}

export class NotAcceptable extends Schema.Class<NotAcceptable>("NotAcceptable")(
  envelope(406, "Not Acceptable"),
  HttpApiSchema.annotations({ status: 406, description: "`Accept` excludes application/json" })
) {
  static of(details: Details) {
    return new NotAcceptable({ statusCode: 406, error: "Not Acceptable", ...details })
  }
}

export class UnsupportedMediaType extends Schema.Class<UnsupportedMediaType>("UnsupportedMediaType")(
  envelope(415, "Unsupported Media Type"),
  HttpApiSchema.annotations({
    status: 415,
    description: "A body that is not `Content-Type: application/json` (`unsupported_media_type`)"
  })
) {
  static of(details: Details) {
    return new UnsupportedMediaType({ statusCode: 415, error: "Unsupported Media Type", ...details })
  }
}

export class ServiceUnavailable extends Schema.Class<ServiceUnavailable>("ServiceUnavailable")(
  { ...envelope(503, "Service Unavailable"), retryAfter: Schema.Int },
  HttpApiSchema.annotations({
    status: 503,
    description: "A payment provider or the database is unavailable; nothing was charged. See `Retry-After`"
  })
) {
  static of(details: Details & { readonly retryAfter: number }) {
    return new ServiceUnavailable({ statusCode: 503, error: "Service Unavailable", ...details })
  }
}

export class InternalServerError extends Schema.Class<InternalServerError>("InternalServerError")(
  {
    ...envelope(500, "Internal Server Error"),
    /** The request's trace id, to find it in the logs and traces. */
    traceId: Schema.optional(Schema.String)
  },
  HttpApiSchema.annotations({ status: 500, description: "Unexpected failure; retry with exponential back-off" })
) {
  static of(details: Details & { readonly traceId?: string }) {
    return new InternalServerError({ statusCode: 500, error: "Internal Server Error", ...details })
  }
}

export type HttpError =
  | BadRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | MethodNotAllowed
  | Conflict
  | PayloadTooLarge
  | UnprocessableEntity
  | TooManyRequests
  | ServiceUnavailable
  | NotAcceptable
  | UnsupportedMediaType
  | InternalServerError

export const isHttpError = (u: unknown): u is HttpError =>
  u instanceof BadRequest ||
  u instanceof Unauthorized ||
  u instanceof Forbidden ||
  u instanceof NotFound ||
  u instanceof MethodNotAllowed ||
  u instanceof ServiceUnavailable ||
  u instanceof NotAcceptable ||
  u instanceof UnsupportedMediaType ||
  u instanceof Conflict ||
  u instanceof PayloadTooLarge ||
  u instanceof UnprocessableEntity ||
  u instanceof TooManyRequests ||
  u instanceof InternalServerError
