import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { batched } from "./batched.ts"

/** The batcher behind the webhook repository's shared statements, without a database. */
describe("batched", () => {
  it.scopedLive("concurrent calls share statements, and each caller gets the answer for its own key", () =>
    Effect.gen(function* () {
      const statements: Array<ReadonlyArray<number>> = []
      const double = yield* batched((keys: ReadonlyArray<number>) =>
        Effect.sync(() => statements.push(keys)).pipe(
          Effect.zipRight(Effect.sleep("5 millis")),
          Effect.as(keys.map((k) => k * 2))
        )
      )
      const keys = Array.from({ length: 200 }, (_, i) => i)
      const answers = yield* Effect.forEach(keys, double, { concurrency: "unbounded" })
      expect(answers).toEqual(keys.map((k) => k * 2))
      expect(statements.length).toBeLessThan(20)
      expect(statements.flat().sort((a, b) => a - b)).toEqual(keys)
    })
  )

  it.scoped("a call alone runs at once, alone", () =>
    Effect.gen(function* () {
      const statements: Array<ReadonlyArray<string>> = []
      const echo = yield* batched((keys: ReadonlyArray<string>) =>
        Effect.sync(() => {
          statements.push(keys)
          return keys
        })
      )
      expect(yield* echo("a")).toBe("a")
      expect(yield* echo("b")).toBe("b")
      expect(statements).toEqual([["a"], ["b"]])
    })
  )

  it.scoped("a failing statement fails every caller of that batch, and the next batch runs", () =>
    Effect.gen(function* () {
      let fail = true
      const run = yield* batched((keys: ReadonlyArray<number>) =>
        fail ? Effect.die(new Error("connection lost")) : Effect.succeed(keys)
      )
      const failed = yield* Effect.forEach([1, 2, 3], (k) => Effect.exit(run(k)), { concurrency: "unbounded" })
      expect(failed.every((exit) => exit._tag === "Failure")).toBe(true)
      fail = false
      expect(yield* run(4)).toBe(4)
    })
  )
})
