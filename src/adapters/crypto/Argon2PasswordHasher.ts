import argon2 from "argon2"
import { Effect, Layer } from "effect"
import { PasswordHasher } from "../../ports/PasswordHasher.ts"

/** argon2id with the library's defaults (64 MiB, 3 passes), the OWASP-recommended family. */
export const Argon2PasswordHasher = Layer.succeed(PasswordHasher, {
  hash: (password) => Effect.promise(() => argon2.hash(password, { type: argon2.argon2id })),
  verify: (hash, password) => Effect.promise(() => argon2.verify(hash, password).catch(() => false))
})
