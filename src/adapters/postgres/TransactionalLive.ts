import { SqlClient } from "@effect/sql"
import { Cause, Effect, FiberRef, Layer, Option, Schedule } from "effect"
import { Transactional } from "../../ports/Transactional.ts"
import { withDeferredBatch, withDeferredWrites } from "./deferred.ts"
import { sqlDetail, sqlState } from "./sqlState.ts"

/** deadlock_detected and serialization_failure: the database rolled the transaction back to let others on. */
const VICTIM_STATES = new Set(["40P01", "40001"])
/** Runs in all: three more after the first, the cycle's other side long committed by then. */
const RETRIES = 3

const victimOf = (cause: Cause.Cause<unknown>) =>
  [...Cause.defects(cause), ...Cause.failures(cause)].find((e) => VICTIM_STATES.has(sqlState(e) ?? ""))

/** What waits for the outermost transaction's COMMIT (`afterCommit`); undefined outside `run`. */
const committed = FiberRef.unsafeMake<Array<Effect.Effect<void>> | undefined>(undefined)

/**
 * `sql.withTransaction`: rolls back on any failure or defect; nested calls become savepoints. The
 * writes deferred inside (deferred.ts) go in one statement before COMMIT; what waits for the commit
 * (`afterCommit`) runs after the outermost one succeeds. `batch`: deferred writes only, as one statement
 * without a transaction around it (deferred.ts `withDeferredBatch`). `retrying`: the outermost transaction
 * run again when the database chose it as a deadlock's victim; inside another transaction it is `run` (the
 * outer one holds its locks, so only the outer one can be run again).
 */
export const TransactionalLive = Layer.effect(
  Transactional,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const once = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql
        .withTransaction(withDeferredWrites(sql)(effect))
        .pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(FiberRef.get(committed), (outer) =>
        outer !== undefined
          ? once(effect)
          : Effect.suspend(() => {
              // One list per attempt: an attempt rolled back (and run again) leaves its list behind.
              const after: Array<Effect.Effect<void>> = []
              return Effect.locally(once(effect), committed, after).pipe(
                Effect.tap(() => Effect.forEach(after, (e) => e, { discard: true }))
              )
            })
      )
    return Transactional.of({
      run,
      retrying: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) => {
          if (Option.isSome(outer)) return run(effect)
          let attempt = 0
          return run(effect).pipe(
            Effect.tapErrorCause((cause) => {
              const victim = victimOf(cause)
              attempt++
              // pg's detail names the sessions and the locks of the cycle: what finding its cause needs.
              return victim === undefined || attempt > RETRIES
                ? Effect.void
                : Effect.logWarning(
                    "the database aborted a transaction to break a lock cycle or a conflict; run again"
                  ).pipe(Effect.annotateLogs({ sqlstate: sqlState(victim), detail: sqlDetail(victim) ?? "" }))
            }),
            Effect.sandbox,
            Effect.retry({
              times: RETRIES,
              schedule: Schedule.jittered(Schedule.exponential("20 millis")),
              while: (cause) => victimOf(cause) !== undefined
            }),
            Effect.unsandbox
          )
        }),
      afterCommit: (effect) =>
        Effect.flatMap(FiberRef.get(committed), (after) =>
          after === undefined ? effect : Effect.sync(() => void after.push(effect))
        ),
      batch: withDeferredBatch(sql)
    })
  })
)
