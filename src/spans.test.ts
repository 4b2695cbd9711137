import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { fn, withSpan } from "./spans.ts"

/** The name of the span the program runs in, if any. */
const spanName = Effect.map(
  Effect.option(Effect.currentSpan),
  Option.map((s) => s.name)
)

describe("spans only when the tracer is enabled (issue 10)", () => {
  const named = fn("Spans.test")(function* (n: number) {
    return { n, span: yield* spanName }
  })

  it.effect("fn and withSpan build their span while tracing is on", () =>
    Effect.gen(function* () {
      expect(yield* named(1)).toEqual({ n: 1, span: Option.some("Spans.test") })
      expect(yield* spanName.pipe(withSpan("Spans.with"))).toEqual(Option.some("Spans.with"))
    })
  )

  it.effect("and run the bare program when it is off: no span, same result", () =>
    Effect.gen(function* () {
      expect(yield* named(2)).toEqual({ n: 2, span: Option.none() })
      expect(yield* spanName.pipe(withSpan("Spans.with"))).toEqual(Option.none())
    }).pipe(Effect.withTracerEnabled(false))
  )

  it.effect("failures pass through either way", () =>
    Effect.gen(function* () {
      const failing = fn("Spans.failing")(function* () {
        return yield* Effect.fail("no")
      })
      expect(yield* Effect.flip(failing())).toBe("no")
      expect(yield* Effect.flip(failing().pipe(Effect.withTracerEnabled(false)))).toBe("no")
    })
  )
})
