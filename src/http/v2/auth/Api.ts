import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Account, ApiKey } from "../../../domain/account.ts"
import { Email, MerchantDocument, Name, Password } from "../../../domain/fields.ts"
import { BadRequest, Conflict, TooManyRequests, Unauthorized } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { SignupGate } from "../../shared/security.ts"

export const SignupRequest = payload(
  Schema.Struct({
    name: Name,
    email: Email,
    password: Password,
    /** The merchant's CPF or CNPJ (punctuation allowed), printed on its boletos beside its name (docs/boleto.md). */
    document: Schema.optional(MerchantDocument)
  })
)

export const ApiKeyWithSecret = Schema.Struct({ ...ApiKey.fields, fullKey: Schema.String })

export const SignupResponse = Schema.Struct({ account: Account, apiKey: ApiKeyWithSecret })

export const LoginRequest = payload(
  Schema.Struct({
    email: Schema.String.pipe(Schema.maxLength(254)),
    password: Schema.String.pipe(Schema.maxLength(1024))
  })
)

export const LoginResponse = Schema.Struct({ accessToken: Schema.String })

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("signup", "/signup")
      .setPayload(SignupRequest)
      .addSuccess(SignupResponse, { status: 201 })
      .addError(BadRequest)
      .addError(Conflict)
      .middleware(SignupGate)
      .annotate(
        OpenApi.Description,
        "Creates an account and its primary API key. The full key is shown only here. 409 when the " +
          "email is registered; 404 when SIGNUP_ENABLED=false."
      )
  )
  .add(
    HttpApiEndpoint.post("login", "/login")
      .setPayload(LoginRequest)
      .addSuccess(LoginResponse)
      .addError(BadRequest)
      .addError(Unauthorized)
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Returns an HS256 JWT (`sub` = account id, `exp` 15 minutes) for the key-management routes. " +
          "After LOGIN_FAILURES_MAX failed logins of one email (default 10) within " +
          "LOGIN_FAILURES_WINDOW_SECONDS (default 900), its logins answer 429 `login_rate_limited` with " +
          "`Retry-After` until the window ends, whether the email has an account or not; a success clears the count."
      )
  )
  .prefix("/auth")
  .annotate(OpenApi.Title, "Authentication") {}
