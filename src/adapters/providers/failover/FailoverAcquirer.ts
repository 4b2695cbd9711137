import { Effect, Either } from "effect"
import type { CardBrand } from "../../../domain/card.ts"
import { Acquirer, AcquirerUnavailable, type AuthorizationResult, type ChargeStatus } from "../../../ports/Acquirer.ts"
import type { Metrics } from "../../../ports/Metrics.ts"
import { withSpan } from "../../../spans.ts"

/**
 * An Acquirer that routes a charge through an ordered list of acquirers (docs/providers.md "Failover
 * rules"). It names no provider: its members are opaque names with an Acquirer each.
 *
 * - A charge moves to the next acquirer only when the previous one certainly did not charge: its
 *   failure is `not_charged` (connection refused, a refusal, or a timeout or 5xx the member's status
 *   query showed never arrived: a 5xx may follow a charge made, docs/providers.md). After a decline:
 *   never. After `unknown`: the member is asked once more (`status`); only its "not received" moves
 *   on, anything else ends the charge there.
 * - Each attempt's idempotency key is (member, transaction id): the member derives its wire keys
 *   from the same transaction id on every retry of that attempt, so a retry never charges twice
 *   (medusajs/medusa#16292), and two members never share a key.
 * - A circuit breaker per member skips one that failed `failures` times in a row, for `cooldownMs`;
 *   then one charge tries it again (half-open), and one more failure opens it again.
 * - Approvals carry the member's name, which the transaction records: refunds and status queries go
 *   back to it.
 */

export type AcquirerService = Acquirer["Type"]

export interface FailoverOptions {
  /** The deployment's order. */
  readonly order: ReadonlyArray<string>
  /** Optional order per card brand; brands not listed use `order`. */
  readonly byBrand: Partial<Record<CardBrand, ReadonlyArray<string>>>
  readonly breaker: { readonly failures: number; readonly cooldownMs: number }
}

interface BreakerState {
  failures: number
  openUntil: number
}

const notCharged = (message: string) => new AcquirerUnavailable({ message, outcome: "not_charged" })

export const makeFailoverAcquirer = (
  members: ReadonlyMap<string, AcquirerService>,
  options: FailoverOptions,
  metrics: Metrics["Type"],
  now: () => number = Date.now
): AcquirerService => {
  const breakers = new Map<string, BreakerState>()
  const breaker = (name: string) => {
    let state = breakers.get(name)
    if (state === undefined) {
      state = { failures: 0, openUntil: 0 }
      breakers.set(name, state)
    }
    return state
  }
  const isOpen = (name: string) => breaker(name).openUntil > now()
  const succeeded = (name: string) => {
    const state = breaker(name)
    state.failures = 0
    state.openUntil = 0
    metrics.acquirerCircuitOpen.set({ acquirer: name }, 0)
  }
  const failed = (name: string) => {
    const state = breaker(name)
    state.failures++
    if (state.failures >= options.breaker.failures) {
      state.openUntil = now() + options.breaker.cooldownMs
      metrics.acquirerCircuitOpen.set({ acquirer: name }, 1)
    }
  }
  const member = (name: string) => members.get(name)!
  /** Every member, in the deployment's order then any only a brand route names. */
  const everyMember = [...new Set([...options.order, ...Object.values(options.byBrand).flat()])]

  /** What any member knows of this key: a charge found wins; NotReceived only if every one says so. */
  const statusEverywhere = (idempotencyKey: string): Effect.Effect<ChargeStatus, AcquirerUnavailable> =>
    Effect.gen(function* () {
      let declined: ChargeStatus | undefined
      let failure: AcquirerUnavailable | undefined
      for (const name of everyMember) {
        const answer = yield* Effect.either(member(name).status(idempotencyKey))
        if (Either.isLeft(answer)) {
          failure = answer.left
          continue
        }
        if (answer.right._tag === "Approved") return { ...answer.right, acquirer: answer.right.acquirer ?? name }
        if (answer.right._tag === "Declined") declined = answer.right
      }
      if (failure !== undefined) {
        // One member could not be asked: "not received" cannot be claimed.
        return yield* new AcquirerUnavailable({ message: failure.message, outcome: "unknown" })
      }
      return declined ?? { _tag: "NotReceived" }
    })

  const attempt = (name: string, request: Parameters<AcquirerService["charge"]>[0]) =>
    Effect.gen(function* () {
      const started = performance.now()
      const result = yield* Effect.either(member(name).charge({ ...request, sentBefore: false }))
      metrics.acquirerAttemptDuration.observe({ acquirer: name }, (performance.now() - started) / 1000)
      if (Either.isRight(result)) {
        succeeded(name)
        const outcome = result.right._tag === "Approved" ? "approved" : "declined"
        metrics.acquirerAttempts.inc({ acquirer: name, outcome })
        return Either.right(
          result.right._tag === "Approved" ? { ...result.right, acquirer: result.right.acquirer ?? name } : result.right
        )
      }
      failed(name)
      if (result.left.outcome !== "unknown") {
        metrics.acquirerAttempts.inc({ acquirer: name, outcome: "not_charged" })
        return Either.left(result.left)
      }
      // Unknown: ask before anything else happens.
      const asked = yield* Effect.either(member(name).status(request.idempotencyKey))
      if (Either.isRight(asked) && asked.right._tag === "NotReceived") {
        metrics.acquirerAttempts.inc({ acquirer: name, outcome: "not_charged" })
        return Either.left(notCharged(`${result.left.message}; status: not received`))
      }
      if (Either.isRight(asked)) {
        metrics.acquirerAttempts.inc({
          acquirer: name,
          outcome: asked.right._tag === "Approved" ? "approved" : "declined"
        })
        const found = asked.right as AuthorizationResult
        return Either.right(found._tag === "Approved" ? { ...found, acquirer: found.acquirer ?? name } : found)
      }
      metrics.acquirerAttempts.inc({ acquirer: name, outcome: "unknown" })
      // The stop signal: never moved on.
      return yield* Effect.fail(result.left)
    })

  return Acquirer.of({
    charge: (request) =>
      Effect.gen(function* () {
        if (request.sentBefore) {
          // A resumed charge: whatever a member did with this transaction before is the answer.
          const known = yield* statusEverywhere(request.idempotencyKey)
          if (known._tag !== "NotReceived") return known
        }
        const route = options.byBrand[request.card.brand] ?? options.order
        let last: AcquirerUnavailable | undefined
        for (const name of route) {
          if (isOpen(name)) {
            metrics.acquirerAttempts.inc({ acquirer: name, outcome: "skipped" })
            continue
          }
          const result = yield* attempt(name, request)
          if (Either.isRight(result)) return result.right
          last = result.left
        }
        return yield* last ?? notCharged("every acquirer is skipped by its circuit breaker")
      }).pipe(withSpan("FailoverAcquirer.charge")),
    status: (idempotencyKey, acquirer) =>
      acquirer !== null && acquirer !== undefined && members.has(acquirer)
        ? member(acquirer)
            .status(idempotencyKey)
            .pipe(
              Effect.map((s): ChargeStatus => (s._tag === "Approved" ? { ...s, acquirer: s.acquirer ?? acquirer } : s))
            )
        : statusEverywhere(idempotencyKey),
    verify: (card) =>
      Effect.gen(function* () {
        const route = options.byBrand[card.brand] ?? options.order
        let last: AcquirerUnavailable | undefined
        for (const name of route) {
          if (isOpen(name)) continue
          const result = yield* Effect.either(member(name).verify(card))
          if (Either.isRight(result)) return result.right
          // A zero-amount verification moves nothing: any failure may try the next one.
          last = result.left
        }
        return yield* last ?? notCharged("every acquirer is skipped by its circuit breaker")
      }),
    refund: (request) => {
      // Charged before routing was configured (no name recorded): the first of the list.
      const name = request.acquirer ?? options.order[0]!
      const target = members.get(name)
      return target === undefined
        ? Effect.fail(notCharged(`acquirer ${name} is not configured in this deployment`))
        : target.refund(request)
    }
  })
}
