import { Context, Data, type Effect } from "effect"

/** A row a batch relied on changed between its read and the batch's write: nothing was written. */
export class StaleRead extends Data.TaggedError("StaleRead")<{}> {}

/** Runs an effect in one database transaction: repositories and the outbox called inside it join it. */
export class Transactional extends Context.Tag("Transactional")<
  Transactional,
  {
    readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * Runs an effect whose every write is deferred (the outbox, documents, jobs, an idempotency reply,
     * a transaction's insert, a precondition) as ONE statement: atomic without BEGIN and COMMIT, one
     * round trip. Fails with StaleRead when a precondition (OrderRepo.expectUnchanged) no longer holds;
     * then nothing was written. A write that cannot be deferred must not be made inside it.
     */
    readonly batch: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StaleRead, R>
  }
>() {}
