import { Cause, Deferred, Effect, Exit, FiberSet, Queue, type Scope } from "effect"
import { sqlState } from "./sqlState.ts"

/** Most keys in one statement: keeps a statement's parameters and its rows small. */
const MAX_BATCH = 500
/** Statements of one kind in flight at once: the next batch fills while one is on the wire. */
const LANES = 2

/** Each caller of a batch gets its own answer (`run` answers in the order of its calls), or the batch's failure. */
const answer = <K, A>(calls: ReadonlyArray<readonly [K, Deferred.Deferred<A>]>, exit: Exit.Exit<ReadonlyArray<A>>) =>
  Effect.forEach(
    calls,
    ([, deferred], i) =>
      Deferred.done(
        deferred,
        Exit.map(exit, (results) => results[i]!)
      ),
    { discard: true }
  )

/** Whether the database refused a statement for the data it carried: data exceptions and constraints. */
const refusedForItsData = (cause: Cause.Cause<unknown>) =>
  [...Cause.defects(cause), ...Cause.failures(cause)].some((e) => /^2[23]/.test(sqlState(e) ?? ""))

/**
 * Turns a statement over many keys into a function of one key, shared by concurrent callers (the
 * delivery jobs run side by side, each in its own fiber). A call waits for no timer: an idle
 * system runs each call at once, alone; under load, the calls that arrive while a statement is on
 * the wire go together in the next one. `run` answers in the order of its keys. If the database refuses
 * the statement for its data (SQLSTATE classes 22 and 23: a value it cannot store, a constraint), each of its
 * keys is run again alone, one after the other, so the row at fault fails only its own caller, not the
 * deliveries of other merchants that shared its statement. Any other failure (the database away, a timeout)
 * reaches every caller of the batch at once: run again one by one, a batch of N would wait N more failures.
 * The lanes stop with the scope.
 */
export const batched = <K, A>(
  run: (keys: ReadonlyArray<K>) => Effect.Effect<ReadonlyArray<A>>
): Effect.Effect<(key: K) => Effect.Effect<A>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<readonly [K, Deferred.Deferred<A>]>()
    const alone = (call: readonly [K, Deferred.Deferred<A>]) =>
      Effect.flatMap(Effect.exit(run([call[0]])), (exit) => answer([call], exit))
    const lane = Effect.gen(function* () {
      const calls = Array.from(yield* Queue.takeBetween(queue, 1, MAX_BATCH))
      const exit = yield* Effect.exit(run(calls.map(([key]) => key)))
      if (Exit.isFailure(exit) && calls.length > 1 && refusedForItsData(exit.cause))
        yield* Effect.forEach(calls, alone, { discard: true })
      else yield* answer(calls, exit)
    }).pipe(Effect.forever)
    for (let i = 0; i < LANES; i++) yield* Effect.forkScoped(lane)
    yield* Effect.addFinalizer(() => Queue.shutdown(queue))
    return (key: K) =>
      Effect.flatMap(Deferred.make<A>(), (deferred) =>
        Effect.zipRight(Queue.offer(queue, [key, deferred]), Deferred.await(deferred))
      )
  })

/**
 * `batched` for statements that serialise on a key in the database (the rate limit's lock on an API
 * key: docs/performance.md "Admissions in batches"): at most one statement per key in flight from this
 * process, so that two of them never wait for each other's lock, and the calls of that key that arrive
 * meanwhile go together in the next. Calls of different keys never share a statement and never wait
 * for each other. As `batched`: no timer, `run` answers in the order of its calls, a failure reaches
 * every caller of its batch, and the statements stop with the scope. A caller interrupted while it
 * waits leaves its call in the batch.
 */
export const batchedByKey = <C, A>(
  keyOf: (call: C) => string,
  run: (calls: ReadonlyArray<C>) => Effect.Effect<ReadonlyArray<A>>
): Effect.Effect<(call: C) => Effect.Effect<A>, never, Scope.Scope> =>
  Effect.gen(function* () {
    // The calls waiting for each key that has a statement in flight; a key is here exactly while it has.
    const waiting = new Map<string, Array<readonly [C, Deferred.Deferred<A>]>>()
    // Statements run on the scope's fibers, not the first caller's: its span and log annotations are its own.
    const fork = yield* FiberSet.makeRuntime<never>()
    const drain = (key: string, calls: Array<readonly [C, Deferred.Deferred<A>]>): Effect.Effect<void> => {
      let taken: ReadonlyArray<readonly [C, Deferred.Deferred<A>]> = []
      const next: Effect.Effect<void> = Effect.suspend(() => {
        if (calls.length === 0) {
          waiting.delete(key)
          return Effect.void
        }
        taken = calls.splice(0, MAX_BATCH)
        return Effect.exit(run(taken.map(([call]) => call))).pipe(
          Effect.flatMap((exit) => answer(taken, exit)),
          Effect.zipRight(next)
        )
      })
      // The scope closing: no caller is left waiting for an answer that will not come.
      return Effect.onInterrupt(next, () =>
        Effect.forEach([...taken, ...calls], ([, deferred]) => Deferred.interrupt(deferred), { discard: true }).pipe(
          Effect.zipRight(Effect.sync(() => waiting.delete(key)))
        )
      )
    }
    return (call: C) =>
      Effect.flatMap(Deferred.make<A>(), (deferred) =>
        Effect.suspend(() => {
          const key = keyOf(call)
          const calls = waiting.get(key)
          if (calls === undefined) {
            const first: Array<readonly [C, Deferred.Deferred<A>]> = [[call, deferred]]
            waiting.set(key, first)
            fork(drain(key, first))
          } else calls.push([call, deferred])
          return Deferred.await(deferred)
        })
      )
  })
