import type { AccountId } from "../../domain/ids.ts"
import { createHmac } from "node:crypto"
import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Exit, FiberRef, Option, Schedule } from "effect"
import { AppConfig, type AppConfigShape } from "../../config/AppConfig.ts"
import { keyFromVault } from "../../config/vaultKeys.ts"
import type { ClaimRequest } from "../../ports/Admission.ts"
import type { Claim } from "../../ports/IdempotencyStore.ts"
import { Metrics } from "../../ports/Metrics.ts"
import { canonicalJson } from "../../domain/canonicalJson.ts"
import { IdempotencyStore } from "../../ports/IdempotencyStore.ts"
import { Ids } from "../../ports/Ids.ts"
import { CurrentPrincipal } from "./security.ts"
import {
  BadRequest,
  Conflict,
  type HttpError,
  isHttpError,
  ServiceUnavailable,
  TooManyRequests,
  UnprocessableEntity
} from "./errors.ts"
import { errorBody } from "./envelope.ts"
import { holdsCardOrSecret } from "./redact.ts"

export interface Reply {
  readonly status: number
  readonly body: unknown
}

const pathOf = (request: HttpServerRequest.HttpServerRequest) =>
  Option.match(HttpServerRequest.toURL(request), { onNone: () => request.url, onSome: (url) => url.pathname })

/** Retries a bookkeeping write until the database answers, at most for a claim's 60 s lease. */
const inBackground = <A>(write: Effect.Effect<A>) =>
  write.pipe(
    Effect.sandbox,
    Effect.retry(Schedule.spaced("200 millis").pipe(Schedule.upTo("60 seconds"))),
    Effect.ignore,
    Effect.forkDaemon,
    Effect.asVoid
  )

/**
 * Stores an outcome now, or, when the database just went away, as soon as it is back: the answer the
 * client gets (the charge happened) and the one a retry replays stay the same. Not interrupted by the client
 * going away meanwhile: the key would stay claimed, without its outcome, for the claim's lease.
 */
const durably = <A>(write: Effect.Effect<A>) =>
  write.pipe(
    Effect.asVoid,
    Effect.catchAllDefect(() => inBackground(write)),
    Effect.uninterruptible
  )

const KEY = /^[\x20-\x7E]{1,255}$/

/**
 * What is wrong with an Idempotency-Key, or undefined. A key is kept 24 hours (idempotency_keys) and in the
 * request log: one that holds a card number the gateway takes or a secret (an API key `sk_…`, a webhook
 * secret, a card token; `holdsCardOrSecret`) is refused before anything is stored, as a malformed one is
 * (docs/input.md).
 */
const keyProblem = (key: string) =>
  !KEY.test(key)
    ? "must be 1 to 255 printable ASCII characters"
    : holdsCardOrSecret(key)
      ? "must not hold a card number or a secret"
      : undefined

const fingerprintKeys = new WeakMap<AppConfigShape, Buffer>()

/**
 * The key the fingerprints are computed with: HKDF of CARD_VAULT_KEY, as the antifraud's counters'
 * (docs/decisions.md "Idempotency fingerprints"). A charge's body holds the card's number and CVV, and a
 * plain SHA-256 of it, kept 24 hours, could be searched from the rest of the body (all in the transaction's
 * row) over the card numbers of a BIN and the CVVs; keyed, it cannot without the server's secret.
 */
export const fingerprintKey = (config: AppConfigShape): Buffer => {
  const known = fingerprintKeys.get(config)
  if (known !== undefined) return known
  const key = keyFromVault(config, "idempotency-fingerprint")
  fingerprintKeys.set(config, key)
  return key
}

/** The key's scope is the route as requested: the same key on another path is another request. */
const fingerprintOf = (key: Buffer, request: HttpServerRequest.HttpServerRequest, body: unknown) =>
  createHmac("sha256", key)
    .update(`${request.method} ${pathOf(request)}\n${canonicalJson(body)}`)
    .digest("hex")

/** A claim made with the request's admission, for `idempotent` to take over. */
interface Ahead {
  readonly asked: ClaimRequest
  readonly claim: Claim
  taken: boolean
}

const ahead = FiberRef.unsafeMake<Ahead | undefined>(undefined)

/**
 * The claim to make with the admission of a request to an `Idempotent` route (issue 10: key, rate
 * limit and claim in one round trip), or none: no key, a key `idempotent` will refuse, or a body that
 * is not JSON (the route answers 400 and claims nothing).
 */
export const claimToMake = (
  key: Buffer,
  request: HttpServerRequest.HttpServerRequest,
  newResourceId: Effect.Effect<string>
) =>
  Effect.gen(function* () {
    const idempotencyKey = request.headers["idempotency-key"]
    if (idempotencyKey === undefined || keyProblem(idempotencyKey) !== undefined) return undefined
    const body = yield* Effect.option(request.json)
    if (Option.isNone(body)) return undefined
    const made: ClaimRequest = {
      key: idempotencyKey,
      fingerprint: fingerprintOf(key, request, body.value),
      newResourceId: yield* newResourceId
    }
    return made
  })

/**
 * Hands the claim made with the admission to the request's `idempotent`. A request that never gets
 * there (its payload refused by the route's schema, say) gives an acquired claim up as it answers, as
 * `idempotent` gives up the claim of a 400: a corrected retry may reuse the key.
 */
export const claimMade = (store: IdempotencyStore["Type"], accountId: AccountId, asked: ClaimRequest, claim: Claim) =>
  Effect.gen(function* () {
    const made: Ahead = { asked, claim, taken: false }
    yield* FiberRef.set(ahead, made)
    if (claim._tag !== "Acquired") return
    // Best effort: a claim not given up here is freed by its 60 s lease.
    yield* HttpApp.appendPreResponseHandler((_request, response) =>
      made.taken
        ? Effect.succeed(response)
        : store.forget(accountId, asked.key).pipe(
            Effect.catchAllCause(() => Effect.void),
            Effect.as(response)
          )
    )
  })

/**
 * The stored reply of a key the admission found completed, for a request that never reached `idempotent`:
 * its body refused (400) by a decode that depends on today's date — `/api` checks a card's expiry and a
 * buyer's age in the payload's schema — after the first request was answered. A client retrying at 00:01 a
 * charge of 23:59 whose answer it lost is answered that charge (CONTRACT §6: a completed request is replayed),
 * not told that its card has expired (the envelope asks, once the route has answered: envelope.ts).
 */
export const replayedAhead: Effect.Effect<HttpServerResponse.HttpServerResponse | undefined> = Effect.map(
  FiberRef.get(ahead),
  (made) =>
    made !== undefined && !made.taken && made.claim._tag === "Completed"
      ? respond(made.claim.response.status, made.claim.response.body, true)
      : undefined
)

/**
 * An answer that asks the client to come back (a provider or the database unavailable, a limit, a card
 * charge of the same order still in flight), with nothing charged or recorded by this request.
 */
const retryLater = (error: HttpError) =>
  error instanceof ServiceUnavailable ||
  error instanceof TooManyRequests ||
  (error instanceof Conflict && error.code === "payment_in_progress")

const respond = (status: number, body: string, replayed: boolean) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "application/json",
    headers: replayed ? { "idempotent-replayed": "true" } : {}
  })

/**
 * Stores the reply of `a` as the key's outcome. The application calls it as the last step of the
 * database transaction that records `a`, so the store's write joins that transaction (issue 10: the
 * completion was a round trip and a commit of its own after the charge's).
 */
export type Settle<A> = (a: A) => Effect.Effect<void>

/**
 * CONTRACT §6 (Stripe semantics). A request with an Idempotency-Key runs at most once per account:
 * a completed one is replayed byte for byte, one still running gets 409, the same key with another
 * method, path or body gets 422. Validation failures (400) are not remembered, so a corrected retry
 * can reuse the key; a defect keeps the key's reserved resource id and frees it for the next retry.
 *
 * `run` yields a value and `present` makes it the reply. `run` may settle the key inside its own
 * transaction; when the value it then returns is the one it settled, nothing is stored again.
 */
export const idempotent = <A, E extends HttpError, E2 extends HttpError, R>(options: {
  readonly accountId: AccountId
  readonly key: string | undefined
  /** The request's JSON body, read only when the key was not claimed with the admission. */
  readonly body: Effect.Effect<unknown>
  readonly newResourceId: Effect.Effect<string>
  /** `fresh`: the resource id was never handed out before, so there is nothing to resume. */
  readonly run: (resourceId: string, fresh: boolean, settle: Settle<A>) => Effect.Effect<A, E, R>
  readonly present: (a: A) => Effect.Effect<Reply, E2>
}) =>
  Effect.gen(function* () {
    const { accountId, key } = options
    if (key === undefined) {
      const reply = yield* Effect.flatMap(
        options.run(yield* options.newResourceId, true, () => Effect.void),
        options.present
      )
      return respond(reply.status, JSON.stringify(reply.body), false)
    }
    const problem = keyProblem(key)
    if (problem !== undefined) {
      return yield* Effect.fail(
        BadRequest.of({
          message: `Idempotency-Key ${problem}`,
          code: "validation_failed",
          errors: [{ field: "Idempotency-Key", message: problem }]
        })
      )
    }
    const store = yield* IdempotencyStore
    const metrics = yield* Metrics
    const made = yield* FiberRef.get(ahead)
    let proposed: string
    let claim: Claim
    if (made !== undefined && !made.taken && made.asked.key === key) {
      // Claimed with the admission, for this very request and body.
      made.taken = true
      proposed = made.asked.newResourceId
      claim = made.claim
    } else {
      const request = yield* HttpServerRequest.HttpServerRequest
      proposed = yield* options.newResourceId
      const fingerprint = fingerprintOf(fingerprintKey(yield* AppConfig), request, yield* options.body)
      claim = yield* store.claim(accountId, key, fingerprint, proposed)
    }
    switch (claim._tag) {
      case "Completed":
        metrics.idempotency.inc({ outcome: "replayed" })
        return respond(claim.response.status, claim.response.body, true)
      case "InFlight":
        metrics.idempotency.inc({ outcome: "in_flight" })
        return yield* Effect.fail(
          Conflict.of({
            message: "a request with this Idempotency-Key is still being processed; retry later",
            code: "idempotency_key_in_use"
          })
        )
      case "Mismatch":
        metrics.idempotency.inc({ outcome: "payload_mismatch" })
        return yield* Effect.fail(
          UnprocessableEntity.of({
            message: "Idempotency key already used with different payload",
            code: "idempotency_key_reused"
          })
        )
      case "Acquired":
        metrics.idempotency.inc({ outcome: "new" })
    }
    let settled: { readonly a: A; readonly status: number; readonly body: string } | undefined
    const settle: Settle<A> = (a) =>
      Effect.flatMap(Effect.either(options.present(a)), (reply) => {
        // A refusal is not settled here: it is stored, as every failure, once `run` has ended.
        if (reply._tag === "Left") return Effect.void
        const body = JSON.stringify(reply.right.body)
        return store
          .complete(accountId, key, { status: reply.right.status, body })
          .pipe(Effect.tap(() => (settled = { a, status: reply.right.status, body })))
      })
    // The outcome must be stored even if the client goes away mid-request.
    // A claim that kept our new id is a first attempt; one that kept an older id resumes a retry.
    const exit = yield* Effect.exit(
      Effect.uninterruptible(
        Effect.flatMap(options.run(claim.resourceId, claim.resourceId === proposed, settle), (a) =>
          settled?.a === a
            ? Effect.succeed({ status: settled.status, body: settled.body, stored: true })
            : Effect.map(options.present(a), (reply) => ({
                status: reply.status,
                body: JSON.stringify(reply.body),
                stored: false
              }))
        )
      )
    )
    if (Exit.isSuccess(exit)) {
      const { body, status, stored } = exit.value
      if (!stored) yield* durably(store.complete(accountId, key, { status, body }))
      return respond(status, body, false)
    }
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some" && isHttpError(failure.value)) {
      const error = failure.value
      if (error.statusCode === 400) yield* store.forget(accountId, key)
      // "Retry later" is no outcome: nothing was done, and the same key must be able to do it then
      // (README "Idempotency"). Freed before the answer, as after a defect, so the retry resumes the reserved id.
      else if (retryLater(error)) yield* durably(store.release(accountId, key))
      else {
        const { pathname } = new URL((yield* HttpServerRequest.HttpServerRequest).url, "http://x")
        const body = JSON.stringify(errorBody(error, pathname))
        yield* durably(store.complete(accountId, key, { status: error.statusCode, body }))
      }
      return yield* Effect.fail(error)
    }
    // A defect (the database went away mid-request) frees the key for the retry, which resumes the same
    // reserved resource id. Freed before the 500 is answered, so a retry sent on receiving it is not refused
    // as still in flight (it was, forked: test/payments.idempotency-defect-retry.test.ts). The release itself
    // may meet the outage: then it is retried in the background until the database answers (at most the
    // claim's 60 s lease), so the client's retry right after the recovery is not refused either.
    yield* durably(store.release(accountId, key))
    return yield* Effect.failCause(exit.cause)
  })

/**
 * A POST under CONTRACT §6 for the calling account: the request's own JSON body is the fingerprint,
 * and the id reserved with the key becomes the new resource's (transaction, refund), so a retry after
 * a crash resumes the same one.
 */
export const idempotentPost = <E extends HttpError, R>(
  key: string | undefined,
  run: (accountId: AccountId, resourceId: string, fresh: boolean) => Effect.Effect<Reply, E, R>
) => idempotentPresented(key, run, (reply: Reply) => Effect.succeed(reply))

/** `idempotentPost` for a `run` that yields a value, `present` making it the reply (see `idempotent`). */
export const idempotentPresented = <A, E extends HttpError, E2 extends HttpError, R>(
  key: string | undefined,
  run: (accountId: AccountId, resourceId: string, fresh: boolean, settle: Settle<NoInfer<A>>) => Effect.Effect<A, E, R>,
  present: (a: A, accountId: AccountId) => Effect.Effect<Reply, E2>
) =>
  Effect.gen(function* () {
    const { accountId } = yield* CurrentPrincipal
    const request = yield* HttpServerRequest.HttpServerRequest
    const ids = yield* Ids
    return yield* idempotent<A, E, E2, R>({
      accountId,
      key,
      body: Effect.orDie(request.json),
      newResourceId: ids.next,
      run: (id, fresh, settle) => run(accountId, id, fresh, settle),
      present: (a) => present(a, accountId)
    })
  })
