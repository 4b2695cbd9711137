import { Deferred, Effect, Exit, Queue, type Scope } from "effect"

/** Most keys in one statement: keeps a statement's parameters and its rows small. */
const MAX_BATCH = 500
/** Statements of one kind in flight at once: the next batch fills while one is on the wire. */
const LANES = 2

/**
 * Turns a statement over many keys into a function of one key, shared by concurrent callers (the
 * delivery jobs run side by side, each in its own fiber). A call waits for no timer: an idle
 * system runs each call at once, alone; under load, the calls that arrive while a statement is on
 * the wire go together in the next one. `run` answers in the order of its keys. If it fails, every
 * caller of that batch fails with the same cause (a job then fails and graphile-worker retries it,
 * as it would for its own statement). The lanes stop with the scope.
 */
export const batched = <K, A>(
  run: (keys: ReadonlyArray<K>) => Effect.Effect<ReadonlyArray<A>>
): Effect.Effect<(key: K) => Effect.Effect<A>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<readonly [K, Deferred.Deferred<A>]>()
    const lane = Effect.gen(function* () {
      const calls = yield* Queue.takeBetween(queue, 1, MAX_BATCH)
      const exit = yield* Effect.exit(run(Array.from(calls, ([key]) => key)))
      let i = 0
      for (const [, deferred] of calls) {
        yield* Deferred.done(
          deferred,
          Exit.map(exit, (results) => results[i]!)
        )
        i++
      }
    }).pipe(Effect.forever)
    for (let i = 0; i < LANES; i++) yield* Effect.forkScoped(lane)
    yield* Effect.addFinalizer(() => Queue.shutdown(queue))
    return (key: K) =>
      Effect.flatMap(Deferred.make<A>(), (deferred) =>
        Effect.zipRight(Queue.offer(queue, [key, deferred]), Deferred.await(deferred))
      )
  })
