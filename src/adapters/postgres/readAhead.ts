import { Effect, FiberRef, Option } from "effect"
import type { AccountId } from "../../domain/ids.ts"

/**
 * A record the admission read in its own statement (KeyAdmissionLive), for the repository that reads it
 * next on the same request: the order a charge pays (`OrderRepo.findToCharge`, orderToCharge.ts), or the
 * customer, order or transaction a `GET /api/customers/{id}`, `/api/orders/{id}`, `/api/transactions/{id}` or
 * `/public/v1/transactions/{hash}` shows (`CustomerRepo.find`, `OrderRepo.find`, `TransactionRepo.find`).
 * One statement fewer per request
 * (issue 22, docs/performance.md "The order read with the admission", "Admissions in batches").
 */
export interface ReadAhead {
  /** What was read: each repository asks for its own kind only. */
  readonly kind: "orderToCharge" | "customer" | "order" | "transaction"
  readonly accountId: AccountId
  readonly id: string
  /** The record, or that the key's account has none with this id. */
  readonly found: Option.Option<unknown>
}

const readAhead = FiberRef.unsafeMake<ReadAhead | undefined>(undefined)

/** Kept on the request's fiber, which the handler runs on next (as the key's mode is: securityLive.ts). */
export const keepReadAhead = (value: ReadAhead) => FiberRef.set(readAhead, value)

/**
 * What was read ahead, once, if it is this account's read of this record of this kind; none otherwise,
 * and the caller reads the database.
 */
export const takeReadAhead = <A>(kind: ReadAhead["kind"], accountId: AccountId, id: string) =>
  Effect.map(FiberRef.getAndSet(readAhead, undefined), (ahead) =>
    ahead !== undefined && ahead.kind === kind && ahead.accountId === accountId && ahead.id === id
      ? Option.some(ahead.found as Option.Option<A>)
      : Option.none()
  )

/**
 * What was read ahead for this account's read of this record, once; otherwise `read()`, the repository's
 * own statement, built only then.
 */
export const readAheadOr = <A, E, R>(
  kind: ReadAhead["kind"],
  accountId: AccountId,
  id: string,
  read: () => Effect.Effect<Option.Option<A>, E, R>
): Effect.Effect<Option.Option<A>, E, R> =>
  Effect.flatMap(takeReadAhead<A>(kind, accountId, id), (ahead) =>
    Option.isSome(ahead) ? Effect.succeed(ahead.value) : read()
  )
