import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { batched } from "./batched.ts"

/**
 * A batch the database refuses for its data runs its calls again alone (webhooks.hostile-receiver.test.ts);
 * one that fails otherwise — the database out of reach, every statement failing slowly — fails all its
 * callers at once, not after N more failures one after the other with the lane blocked.
 */
describe("batched under a database outage", () => {
  it.live("a batch of callers meeting an outage fails in about the time of one failed statement", () =>
    Effect.gen(function* () {
      let statements = 0
      // Every statement fails after 40 ms, as a database out of reach does (a connect timing out).
      const run = yield* batched((keys: ReadonlyArray<number>) =>
        Effect.sync(() => statements++).pipe(
          Effect.zipRight(Effect.sleep("40 millis")),
          Effect.zipRight(Effect.die(new Error(`connection timeout (${keys.length} keys)`)))
        )
      )
      const started = performance.now()
      const exits = yield* Effect.forEach(
        Array.from({ length: 30 }, (_, i) => i),
        (k) => Effect.exit(run(k)),
        { concurrency: "unbounded" }
      )
      const elapsed = performance.now() - started
      expect(exits.every((e) => e._tag === "Failure")).toBe(true)
      // Before 4088071: two lanes, ~2 statements, ~80 ms. Now each key is tried again alone, in sequence.
      expect(statements, `${statements} statements for 30 calls`).toBeLessThanOrEqual(4)
      expect(elapsed, `30 callers waited ${Math.round(elapsed)} ms`).toBeLessThan(400)
    }).pipe(Effect.scoped)
  )
})
