import { Effect, Either, Layer } from "effect"
import { Acquirer } from "../../ports/Acquirer.ts"
import { Metrics } from "../../ports/Metrics.ts"

/**
 * Wraps whatever Acquirer is plugged in with the latency histogram `acquirer_call_duration_seconds`,
 * so no provider adapter and no application service times its own calls.
 */
export const TimedAcquirer = Layer.effect(
  Acquirer,
  Effect.gen(function* () {
    const inner = yield* Acquirer
    const metrics = yield* Metrics
    const timed =
      (operation: string, outcomeOf: (value: unknown) => string) =>
      <A, E>(call: Effect.Effect<A, E>) =>
        Effect.suspend(() => {
          const started = performance.now()
          return call.pipe(
            Effect.either,
            Effect.tap((result) =>
              Effect.sync(() =>
                metrics.acquirerDuration.observe(
                  { operation, outcome: Either.isLeft(result) ? "failed" : outcomeOf(result.right) },
                  (performance.now() - started) / 1000
                )
              )
            ),
            Effect.flatten
          )
        })
    const byTag = (value: unknown) =>
      (value as { _tag?: string })._tag === "Approved" || (value as { _tag?: string })._tag === "Verified"
        ? "approved"
        : "declined"
    return Acquirer.of({
      charge: (request) => timed("charge", byTag)(inner.charge(request)),
      refund: (request) => timed("refund", () => "approved")(inner.refund(request)),
      status: (key, acquirer) => timed("status", () => "answered")(inner.status(key, acquirer)),
      verify: (card) => timed("verify", byTag)(inner.verify(card))
    })
  })
)
