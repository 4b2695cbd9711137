import { Context, Data, type Effect } from "effect"

/** A row a batch relied on changed between its read and the batch's write: nothing was written. */
export class StaleRead extends Data.TaggedError("StaleRead")<{}> {}

/** Runs an effect in one database transaction: repositories and the outbox called inside it join it. */
export class Transactional extends Context.Tag("Transactional")<
  Transactional,
  {
    readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * `run` for an effect that does nothing outside the database (a movement of the books, a status change
     * with its postings and jobs): when the database aborts it to break a deadlock or a serialization
     * conflict, it rolled back whole and is run again, a few times, instead of failing its caller
     * (docs/decisions.md "Deadlock victims are run again"). Never for an effect that asks a provider.
     */
    readonly retrying: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * Runs `effect` (a count in process memory, a log line) once the database transaction it is called in
     * commits, and never if it rolls back or is run again (`retrying`); outside a transaction, at once.
     */
    readonly afterCommit: (effect: Effect.Effect<void>) => Effect.Effect<void>
    /**
     * Runs an effect whose every write is deferred (the outbox, documents, jobs, an idempotency reply,
     * a transaction's insert, a precondition) as ONE statement: atomic without BEGIN and COMMIT, one
     * round trip. Fails with StaleRead when a precondition (OrderRepo.expectUnchanged) no longer holds;
     * then nothing was written. A write that cannot be deferred must not be made inside it.
     */
    readonly batch: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StaleRead, R>
  }
>() {}
