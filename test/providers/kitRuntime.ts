import { type Context, Effect, type Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll } from "vitest"

/**
 * What every port's kit does around its cases: builds the subject once for the suite, runs the port's layer
 * in a runtime of its own, hands the subject to the kit (`started`), and disposes of both after the suite.
 * `run` and `exit` ask the port's service for one answer, as a value or as an Exit.
 */
export const kitRuntime = <I, S, Subject extends { readonly layer: Layer.Layer<I> }>(
  tag: Context.Tag<I, S>,
  subject: () => Promise<Subject> | Subject,
  teardown: (() => Promise<void>) | undefined,
  started: (subject: Subject) => void
) => {
  let runtime: ManagedRuntime.ManagedRuntime<I, never> | undefined
  beforeAll(async () => {
    const made = await subject()
    started(made)
    runtime = ManagedRuntime.make(made.layer)
  })
  afterAll(async () => {
    await runtime?.dispose()
    await teardown?.()
  })
  return {
    run: <A, E>(f: (service: S) => Effect.Effect<A, E>) => runtime!.runPromise(Effect.flatMap(tag, f)),
    exit: <A, E>(f: (service: S) => Effect.Effect<A, E>) => runtime!.runPromiseExit(Effect.flatMap(tag, f))
  }
}
