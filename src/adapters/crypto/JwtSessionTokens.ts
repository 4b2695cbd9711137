import { AccountId } from "../../domain/ids.ts"
import { Effect, Layer, Redacted } from "effect"
import { errors, jwtVerify, SignJWT } from "jose"
import { AppConfig } from "../../config/AppConfig.ts"
import { isUuid } from "../../domain/uuid.ts"
import { SessionTokens } from "../../ports/SessionTokens.ts"

const LIFETIME = "15m"
const ISSUER = "payment-gateway"

/** HS256 login tokens (CONTRACT §3): `sub` = account id, `exp` 15 minutes. */
export const JwtSessionTokens = Layer.effect(
  SessionTokens,
  Effect.gen(function* () {
    const { jwtSecret } = yield* AppConfig
    const key = new TextEncoder().encode(Redacted.value(jwtSecret))
    return SessionTokens.of({
      issue: (accountId) =>
        Effect.promise(() =>
          new SignJWT({})
            .setProtectedHeader({ alg: "HS256", typ: "JWT" })
            .setSubject(accountId)
            .setIssuer(ISSUER)
            .setIssuedAt()
            .setExpirationTime(LIFETIME)
            .sign(key)
        ),
      check: (token) =>
        Effect.promise(() =>
          jwtVerify(token, key, { algorithms: ["HS256"], issuer: ISSUER, requiredClaims: ["sub", "exp"] }).then(
            // A token is only as good as its subject: anything but an account id is refused.
            ({ payload }) =>
              isUuid(payload.sub ?? "")
                ? { _tag: "Valid" as const, accountId: AccountId.make(payload.sub!) }
                : { _tag: "Invalid" as const },
            (error: unknown) =>
              error instanceof errors.JWTExpired ? { _tag: "Expired" as const } : { _tag: "Invalid" as const }
          )
        )
    })
  })
)
