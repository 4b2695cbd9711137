import type { AccountId } from "../domain/ids.ts"
import { randomBytes } from "node:crypto"
import { Effect, Option } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { formatApiKey, keyMaterial } from "../domain/apiKey.ts"
import { Conflict, InvalidCredentials, NotFound, RateLimited, ValidationFailed } from "../domain/errors.ts"
import type { Mode } from "../domain/mode.ts"
import { LiveRails } from "../ports/Modes.ts"
import { isUuid } from "../domain/uuid.ts"
import { AccountRepo } from "../ports/AccountRepo.ts"
import { ApiKeyHasher } from "../ports/ApiKeyHasher.ts"
import { ApiKeyRepo } from "../ports/ApiKeyRepo.ts"
import { Ids } from "../ports/Ids.ts"
import { LoginThrottle } from "../ports/LoginThrottle.ts"
import { PasswordHasher } from "../ports/PasswordHasher.ts"
import { SessionTokens } from "../ports/SessionTokens.ts"
import { fn } from "../spans.ts"

export interface SignupInput {
  readonly name: string
  readonly email: string
  readonly password: string
  /** The merchant's CPF or CNPJ, already validated and normalised, printed on its boletos (docs/boleto.md). */
  readonly document?: string | undefined
}

/** A key of the tenant's mode: `sk_test_…` or `sk_live_…` (docs/decisions.md "Test and live modes"). */
const newSecretKey = (mode: Mode) => formatApiKey(mode, randomBytes(32))

/** Accounts, their login and their keys (CONTRACT §3). */
export class Accounts extends Effect.Service<Accounts>()("Accounts", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const accounts = yield* AccountRepo
    const keys = yield* ApiKeyRepo
    const keyHasher = yield* ApiKeyHasher
    const hasher = yield* PasswordHasher
    const tokens = yield* SessionTokens
    const ids = yield* Ids
    const liveRails = yield* LiveRails
    const throttle = yield* LoginThrottle
    // A real hash of a password nobody knows: login spends the same time on unknown emails.
    const dummyHash = yield* Effect.cached(hasher.hash(randomBytes(24).toString("base64")))

    const modeOf = (accountId: AccountId) =>
      Effect.map(accounts.findById(accountId), Option.match({ onNone: () => "test" as const, onSome: (a) => a.mode }))

    const create = fn("Accounts.create")(function* (input: SignupInput) {
      if (input.password.length < 10) {
        return yield* ValidationFailed.one("password", "password must have at least 10 characters")
      }
      const account = yield* accounts.insert({
        id: yield* ids.next,
        name: input.name,
        email: input.email,
        passwordHash: yield* hasher.hash(input.password),
        document: input.document ?? null
      })
      // Signup makes the merchant's test tenant and a test key, in every environment (issue 24 §1).
      const fullKey = newSecretKey("test")
      const apiKey = yield* keys.insert({
        id: yield* ids.next,
        accountId: account.id,
        label: "Primary key",
        isPrimary: true,
        scopes: null,
        rateLimit: config.rateLimitPerMinute,
        ...keyMaterial(fullKey, keyHasher.digest)
      })
      return { account, apiKey, fullKey }
    })

    return {
      /** Signup and the operator CLI; SIGNUP_ENABLED is enforced by SignupGate, before a signup body is read. */
      create,

      /**
       * The attempt is counted for its email before anything else (docs/decisions.md "Login attempts"): past
       * LOGIN_FAILURES_MAX failures in the window, 429 with no account read and no Argon2 run, the same
       * answer whether the email has an account or not. A success forgets the email's failures.
       */
      login: fn("Accounts.login")(function* (email: string, password: string) {
        const { maxFailures, windowSeconds } = config.loginThrottle
        const attempt = yield* throttle.take(email, maxFailures, windowSeconds)
        if (!attempt.allowed) {
          return yield* new RateLimited({
            code: "login_rate_limited",
            message:
              `too many failed logins for this email (${maxFailures} in ${windowSeconds} s); ` +
              `retry in ${attempt.retryAfterSeconds} s`,
            retryAfterSeconds: attempt.retryAfterSeconds
          })
        }
        const found = yield* accounts.findByEmail(email)
        const hash = Option.isSome(found) ? found.value.passwordHash : yield* dummyHash
        const ok = yield* hasher.verify(hash, password)
        if (Option.isNone(found) || !ok) return yield* new InvalidCredentials()
        yield* throttle.clear(email)
        return { accessToken: yield* tokens.issue(found.value.account.id) }
      }),

      primaryKey: fn("Accounts.primaryKey")(function* (accountId: AccountId) {
        return yield* Effect.flatten(keys.findPrimary(accountId)).pipe(
          Effect.catchTag("NoSuchElementException", () => new NotFound({ message: "API key not found" }))
        )
      }),

      /**
       * The merchant's live key (issue 24 §1): the primary key of its live tenant, which is made the first
       * time. Asked again, it replaces that key's secret (the previous live key stops at once), as
       * regenerate does for the test key. 409 `live_mode_unavailable` while the operator has configured no
       * live payment rail, naming what is missing. `ownerId` is the merchant (the account that logs in).
       */
      createLiveKey: fn("Accounts.createLiveKey")(function* (ownerId: AccountId) {
        if (liveRails.missing.length > 0) {
          return yield* new Conflict({
            code: "live_mode_unavailable",
            message: `live mode is not available on this deployment: ${liveRails.missing.join("; ")}`
          })
        }
        const owner = yield* Effect.flatten(accounts.findById(ownerId)).pipe(
          Effect.catchTag("NoSuchElementException", () => new NotFound({ message: "account not found" }))
        )
        // A live tenant's own session, if one ever reaches here, asks for its merchant's live key.
        const tenant = yield* accounts.liveTenant(owner.ownerId ?? owner.id, yield* ids.next)
        const fullKey = newSecretKey("live")
        const material = keyMaterial(fullKey, keyHasher.digest)
        // One upsert, not rotate-then-insert: two first requests at once would both find no key and the
        // second insert would break the one-primary index.
        const apiKey = yield* keys.putPrimary({
          id: yield* ids.next,
          accountId: tenant.id,
          label: "Live key",
          isPrimary: true,
          scopes: null,
          rateLimit: config.rateLimitPerMinute,
          ...material
        })
        return { account: tenant, apiKey, fullKey }
      }),

      regenerate: fn("Accounts.regenerate")(function* (accountId: AccountId) {
        const fullKey = newSecretKey(yield* modeOf(accountId))
        const apiKey = yield* Effect.flatten(
          keys.rotatePrimary(accountId, keyMaterial(fullKey, keyHasher.digest))
        ).pipe(Effect.catchTag("NoSuchElementException", () => new NotFound({ message: "API key not found" })))
        return { apiKey, fullKey }
      }),

      createRestrictedKey: fn("Accounts.createRestrictedKey")(function* (
        accountId: AccountId,
        label: string,
        scopes: ReadonlyArray<string>,
        rateLimit?: number
      ) {
        const fullKey = newSecretKey(yield* modeOf(accountId))
        const apiKey = yield* keys.insert({
          id: yield* ids.next,
          accountId,
          label,
          isPrimary: false,
          scopes,
          rateLimit: rateLimit ?? config.rateLimitPerMinute,
          ...keyMaterial(fullKey, keyHasher.digest)
        })
        return { apiKey, fullKey }
      }),

      listRestrictedKeys: fn("Accounts.listRestrictedKeys")(function* (accountId: AccountId) {
        return yield* keys.listRestricted(accountId)
      }),

      /** Another account's key, the primary key or an unknown id: 404 alike (docs/operations.md). */
      revokeRestrictedKey: fn("Accounts.revokeRestrictedKey")(function* (accountId: AccountId, id: string) {
        return yield* Effect.flatten(keys.revokeRestricted(accountId, id)).pipe(
          Effect.catchTag("NoSuchElementException", () => new NotFound({ message: "restricted API key not found" }))
        )
      }),

      findByEmailOrId: (emailOrId: string) =>
        isUuid(emailOrId)
          ? accounts.findById(emailOrId)
          : accounts.findByEmail(emailOrId).pipe(Effect.map(Option.map((f) => f.account)))
    }
  })
}) {}
