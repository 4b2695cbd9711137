import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import { batched, batchedByKey } from "./batched.ts"

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

/** The batcher behind the admissions of one API key (KeyAdmissionLive), without a database. */
describe("batchedByKey", () => {
  it.scopedLive("one statement per key in flight; the calls that wait go together, each answered in order", () =>
    Effect.gen(function* () {
      const statements: Array<ReadonlyArray<string>> = []
      const inFlight = new Map<string, number>()
      let most = 0
      const answer = yield* batchedByKey(
        (call: string) => call.split(":")[0]!,
        (calls) =>
          Effect.gen(function* () {
            const key = calls[0]!.split(":")[0]!
            expect(calls.every((call) => call.startsWith(`${key}:`))).toBe(true)
            const now = (inFlight.get(key) ?? 0) + 1
            inFlight.set(key, now)
            most = Math.max(most, now)
            statements.push(calls)
            yield* Effect.sleep("3 millis")
            inFlight.set(key, now - 1)
            return calls.map((call) => `answer to ${call}`)
          })
      )
      const calls = Array.from({ length: 300 }, (_, i) => `${["a", "b", "c"][i % 3]}:${i}`)
      const answers = yield* Effect.forEach(calls, answer, { concurrency: "unbounded" })
      expect(answers).toEqual(calls.map((call) => `answer to ${call}`))
      expect(most).toBe(1)
      expect(statements.length).toBeLessThan(30)
      expect(statements.flat().sort()).toEqual([...calls].sort())
      // Idle again: a call alone runs at once, alone.
      statements.length = 0
      expect(yield* answer("a:alone")).toBe("answer to a:alone")
      expect(statements).toEqual([["a:alone"]])
    })
  )

  it.scopedLive("a key's statement does not wait for another key's", () =>
    Effect.gen(function* () {
      const b = yield* Deferred.make<void>()
      const answer = yield* batchedByKey(
        (call: string) => call,
        (calls) =>
          // a's statement can only finish once b's has: were they queued together, neither would.
          (calls[0] === "a" ? Deferred.await(b) : Deferred.succeed(b, undefined)).pipe(Effect.as(calls))
      )
      const both = yield* Effect.all([answer("a"), answer("b")], { concurrency: "unbounded" }).pipe(
        Effect.timeout("2 seconds")
      )
      expect(both).toEqual(["a", "b"])
    })
  )

  it.scoped("a failing statement fails every caller of that batch, and the key's next batch runs", () =>
    Effect.gen(function* () {
      let fail = true
      const run = yield* batchedByKey(
        () => "one key",
        (calls: ReadonlyArray<number>) => (fail ? Effect.die(new Error("connection lost")) : Effect.succeed(calls))
      )
      const failed = yield* Effect.forEach([1, 2, 3], (k) => Effect.exit(run(k)), { concurrency: "unbounded" })
      expect(failed.every((exit) => exit._tag === "Failure")).toBe(true)
      fail = false
      expect(yield* run(4)).toBe(4)
    })
  )

  it.live("callers waiting when the scope closes are interrupted, not left waiting", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const never = yield* batchedByKey(
        () => "one key",
        () => Effect.never
      ).pipe(Scope.extend(scope))
      const callers = yield* Effect.forEach([1, 2, 3], (k) => Effect.fork(never(k)))
      yield* Effect.sleep("20 millis")
      yield* Scope.close(scope, Exit.void)
      const exits = yield* Effect.forEach(callers, Fiber.await).pipe(Effect.timeout("2 seconds"))
      expect(exits.every((exit) => Exit.isInterrupted(exit))).toBe(true)
    })
  )
})
