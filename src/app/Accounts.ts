import type { AccountId } from "../domain/ids.ts"
import { randomBytes } from "node:crypto"
import { Effect, Option } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { formatApiKey, keyMaterial } from "../domain/apiKey.ts"
import { InvalidCredentials, NotFound, ValidationFailed } from "../domain/errors.ts"
import { isUuid } from "../domain/uuid.ts"
import { AccountRepo } from "../ports/AccountRepo.ts"
import { ApiKeyHasher } from "../ports/ApiKeyHasher.ts"
import { ApiKeyRepo } from "../ports/ApiKeyRepo.ts"
import { Ids } from "../ports/Ids.ts"
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

const newSecretKey = () => formatApiKey("live", randomBytes(32))

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
    // A real hash of a password nobody knows: login spends the same time on unknown emails.
    const dummyHash = yield* Effect.cached(hasher.hash(randomBytes(24).toString("base64")))

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
      const fullKey = newSecretKey()
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

      login: fn("Accounts.login")(function* (email: string, password: string) {
        const found = yield* accounts.findByEmail(email)
        const hash = Option.isSome(found) ? found.value.passwordHash : yield* dummyHash
        const ok = yield* hasher.verify(hash, password)
        if (Option.isNone(found) || !ok) return yield* new InvalidCredentials()
        return { accessToken: yield* tokens.issue(found.value.account.id) }
      }),

      primaryKey: fn("Accounts.primaryKey")(function* (accountId: AccountId) {
        return yield* Effect.flatten(keys.findPrimary(accountId)).pipe(
          Effect.catchTag("NoSuchElementException", () => new NotFound({ message: "API key not found" }))
        )
      }),

      regenerate: fn("Accounts.regenerate")(function* (accountId: AccountId) {
        const fullKey = newSecretKey()
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
        const fullKey = newSecretKey()
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
