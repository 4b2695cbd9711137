import { randomInt } from "node:crypto"
import { Context, Deferred, Effect, Layer, Schedule } from "effect"
import pg from "pg"
import { PgPool } from "./Database.ts"

/** The advisory lock class of claim owners; `claim_owner_alive` (migration 0014) looks for it. */
const OWNER_LOCK_CLASS = 1_919_000_005

/**
 * This process as the owner of the Idempotency-Key claims it makes (migration 0014): a random id for
 * its life, whose session advisory lock it holds while it lives. A claim whose owner's lock is gone is
 * taken over by the next retry at once instead of after its 60 s lease (docs/operations.md).
 */
export class ClaimOwner extends Context.Tag("ClaimOwner")<ClaimOwner, { readonly id: number }>() {}

/**
 * Holds the lock on a connection of its own (outside the pool: a pooled connection goes back to
 * others). A lost connection is replaced and the lock taken again at once; meanwhile this process's
 * claims look abandoned, which only matters if that connection alone dropped, the database and the
 * requests' own connections staying up (docs/operations.md). Behind a pooler in transaction mode a
 * session lock stays on the server connection: claims then look alive and the lease decides, as before.
 */
export const ClaimOwnerLive = Layer.scoped(
  ClaimOwner,
  Effect.gen(function* () {
    const pool = yield* PgPool
    const id = randomInt(1, 2 ** 31 - 1)
    const held = yield* Deferred.make<void>()
    let lost = false
    const session = Effect.acquireRelease(
      Effect.tryPromise(async () => {
        const client = new pg.Client({
          connectionString: pool.options.connectionString,
          application_name: "payment-gateway claim owner"
        })
        // Without a listener, a connection error would crash the process.
        client.on("error", () => {})
        try {
          await client.connect()
          await client.query("select pg_advisory_lock($1, $2)", [OWNER_LOCK_CLASS, id])
          return client
        } catch (error) {
          void client.end().catch(() => {})
          throw error
        }
      }),
      (client) => Effect.promise(() => client.end()).pipe(Effect.timeout("2 seconds"), Effect.ignore)
    ).pipe(
      Effect.tap(() => (lost ? Effect.logInfo("claim owner lock held again") : Effect.void)),
      Effect.tap(() => Deferred.succeed(held, undefined)),
      Effect.flatMap((client) =>
        Effect.async<void>((resume) => {
          const ended = () => resume(Effect.void)
          client.once("error", ended)
          client.once("end", ended)
          return Effect.sync(() => {
            client.removeListener("error", ended)
            client.removeListener("end", ended)
          })
        })
      ),
      Effect.zipRight(
        Effect.suspend(() => {
          lost = true
          return Effect.logWarning("claim owner lock lost with its connection: taking it again")
        })
      ),
      Effect.scoped,
      Effect.ignore
    )
    yield* session.pipe(Effect.repeat(Schedule.spaced("200 millis")), Effect.forkScoped)
    // Nothing is claimed before the lock is held (start-up has just reached the database).
    yield* Deferred.await(held).pipe(Effect.timeout("30 seconds"), Effect.orDie)
    return { id }
  })
)
