import { SqlClient, type Statement } from "@effect/sql"
import { Effect, FiberRef } from "effect"
import { StaleRead } from "../../ports/Transactional.ts"

/**
 * A write that nothing reads before COMMIT (an outbox event, a job, a public document): its CTEs and
 * the values its final `select` computes, named by `name(base)` so that many fit in one statement.
 */
export type DeferredWrite = (name: (base: string) => string) => {
  readonly ctes?: ReadonlyArray<readonly [string, Statement.Fragment]>
  readonly select?: ReadonlyArray<Statement.Fragment>
}

interface Pending {
  readonly writes: Array<DeferredWrite>
  open: boolean
  /** Collected for `withDeferredBatch`: no database transaction is open around them. */
  readonly batch: boolean
}

const current = FiberRef.unsafeMake<Pending | undefined>(undefined)

/** The writes as one statement: `with <every CTE> select <every value>` (a select CTE runs only if read). */
const statement = (sql: SqlClient.SqlClient, writes: ReadonlyArray<DeferredWrite>) => {
  const ctes: Array<Statement.Fragment> = []
  const values: Array<Statement.Fragment> = []
  writes.forEach((write, i) => {
    const part = write((base) => `${base}_${i}`)
    for (const [name, body] of part.ctes ?? []) ctes.push(sql`${sql.literal(name)} as (${body})`)
    values.push(...(part.select ?? []))
  })
  const head = ctes.length === 0 ? sql`` : sql`with ${sql.csv(ctes)}`
  return sql`${head} select ${values.length === 0 ? sql`1` : sql.csv(values)}`
}

/**
 * Runs `write` now, or, inside a database transaction of `Transactional`, with the transaction's
 * other deferred writes in one statement just before COMMIT (issue 10: a PIX charge's event,
 * documents and expiry job were three round trips). They commit or roll back with it all the same.
 */
export const deferWrite = (sql: SqlClient.SqlClient, write: DeferredWrite): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(current), (pending) =>
    pending?.open
      ? Effect.sync(() => void pending.writes.push(write))
      : statement(sql, [write]).pipe(Effect.orDie, Effect.asVoid)
  )

/** `effect` with its deferred writes sent after it succeeds, on its connection (inside the transaction). */
export const withDeferredWrites =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const pending: Pending = { writes: [], open: true, batch: false }
      return Effect.locally(effect, current, pending).pipe(
        Effect.tap(() => {
          // A write made later by a fiber forked inside (none should be) runs on its own.
          pending.open = false
          return pending.writes.length === 0 ? Effect.void : Effect.orDie(statement(sql, pending.writes))
        }),
        Effect.ensuring(Effect.sync(() => (pending.open = false)))
      )
    })

/**
 * The SQLSTATE `expect_unchanged` (migration 0036) raises when a row a batch relies on changed since it
 * was read: the whole statement rolls back and the caller takes its locking path instead.
 */
const STALE = "GW409"

const isStale = (error: unknown) =>
  typeof error === "object" &&
  error !== null &&
  "cause" in error &&
  typeof error.cause === "object" &&
  error.cause !== null &&
  "code" in error.cause &&
  error.cause.code === STALE

/** Whether the current fiber is collecting a batch (`withDeferredBatch`): a write must then be deferred. */
export const inBatch: Effect.Effect<boolean> = Effect.map(
  FiberRef.get(current),
  (pending) => pending?.open === true && pending.batch
)

/**
 * `effect`, every write of which is deferred, sent as ONE statement with no BEGIN or COMMIT around it
 * (issue 22 §2: a PIX charge after its admission in one round trip). A single statement is atomic by
 * itself: its writes commit together or not at all, like a transaction's. A precondition checked in it
 * (`expect_unchanged`) that no longer holds fails it with `StaleRead`, nothing written.
 */
export const withDeferredBatch =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StaleRead, R> =>
    Effect.suspend(() => {
      const pending: Pending = { writes: [], open: true, batch: true }
      return Effect.locally(effect, current, pending).pipe(
        Effect.tap(() => {
          pending.open = false
          return pending.writes.length === 0
            ? Effect.void
            : statement(sql, pending.writes).pipe(
                Effect.catchAll((error) => (isStale(error) ? Effect.fail(new StaleRead()) : Effect.die(error)))
              )
        }),
        Effect.ensuring(Effect.sync(() => (pending.open = false)))
      )
    })
