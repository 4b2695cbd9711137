import { Context, type Effect } from "effect"

/**
 * Failed logins of one email, counted for every API process together (docs/decisions.md "Login
 * attempts"): past the limit, a login is refused before its password is hashed, whether the email has an
 * account or not.
 */
export class LoginThrottle extends Context.Tag("LoginThrottle")<
  LoginThrottle,
  {
    /**
     * Counts an attempt of `email` in its window (`windowSeconds` from its first attempt since the last
     * success), or takes none once `max` are counted: then `retryAfterSeconds` (at least 1) until the
     * window ends.
     */
    readonly take: (
      email: string,
      max: number,
      windowSeconds: number
    ) => Effect.Effect<{ readonly allowed: boolean; readonly retryAfterSeconds: number }>
    /** A successful login: the email's attempts are forgotten. */
    readonly clear: (email: string) => Effect.Effect<void>
  }
>() {}
