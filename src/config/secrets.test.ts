import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { loadDevelopmentSecrets } from "./secrets.ts"

describe("development secrets in DATA_DIR", () => {
  // What two processes starting at once must agree on: one set of secrets, the first one written
  // (a later writer replacing it would strand the tokens and cards made under the first), and no
  // draft left behind.
  it("loaders starting at once all get the one set that was written first", async () => {
    for (let round = 0; round < 20; round++) {
      const dir = await mkdtemp(join(tmpdir(), "secrets-"))
      try {
        const loaded = await Effect.runPromise(
          Effect.all(
            Array.from({ length: 16 }, () => loadDevelopmentSecrets(dir, Option.none(), Option.none())),
            { concurrency: "unbounded" }
          )
        )
        const keys = new Set(loaded.map((s) => `${Redacted.value(s.jwtSecret)} ${Redacted.value(s.cardVaultKey)}`))
        expect(keys.size).toBe(1)
        expect(await readdir(dir)).toEqual(["secrets.json"])
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    }
  })
})
