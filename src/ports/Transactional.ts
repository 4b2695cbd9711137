import { Context, type Effect } from "effect"

/** Runs an effect in one database transaction: repositories and the outbox called inside it join it. */
export class Transactional extends Context.Tag("Transactional")<
  Transactional,
  {
    readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>() {}
