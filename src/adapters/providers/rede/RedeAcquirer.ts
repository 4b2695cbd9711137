import { randomUUID } from "node:crypto"
import { Effect, Either, Layer, Redacted, Schema } from "effect"
import {
  Acquirer,
  AcquirerUnavailable,
  type AuthorizationResult,
  type CardData,
  type ChargeStatus
} from "../../../ports/Acquirer.ts"
import { withSpan } from "../../../spans.ts"
import { type Answer, jsonCall } from "../shared/jsonHttp.ts"
import { type RedeConfig, RedeConfigFromEnv } from "./config.ts"
import {
  isDeclineCode,
  isValidationCode,
  REDE_APPROVED,
  REDE_CARD_FIELD_CODES,
  REDE_DUPLICATE_REFERENCE,
  REDE_REFUND_REQUESTED,
  REDE_REFUNDED,
  REDE_ZERO_DOLLAR_OK,
  redeDecline
} from "./returnCodes.ts"
import { RedeAnswer, RedeQuery, RedeTransaction } from "./wire.ts"

/** The name recorded on the transactions e.Rede charges (docs/providers.md). */
export const REDE = "rede"

const notCharged = (message: string) => new AcquirerUnavailable({ message: `rede: ${message}`, outcome: "not_charged" })
const unknown = (message: string) => new AcquirerUnavailable({ message: `rede: ${message}`, outcome: "unknown" })

const decode =
  <A, I>(schema: Schema.Schema<A, I>, what: string, failure: (message: string) => AcquirerUnavailable) =>
  (body: unknown): Effect.Effect<A, AcquirerUnavailable> =>
    Schema.decodeUnknown(schema)(body).pipe(Effect.mapError(() => failure(`unexpected ${what} body`)))

const cardFields = (card: CardData) => ({
  cardholderName: card.holderName,
  cardNumber: card.pan,
  expirationMonth: card.expMonth,
  expirationYear: card.expYear,
  ...(card.cvv === undefined ? {} : { securityCode: card.cvv })
})

/**
 * e.Rede v1 (`/v1/transactions`, HTTP Basic PV:token). `reference` is our transaction id, and e.Rede
 * refuses a second transaction with a reference already used: that is this acquirer's idempotency,
 * and a charge whose answer was lost is looked up by reference before anything else.
 */
export const makeRedeAcquirer = (config: RedeConfig) => {
  // The credentials live only in this header: never logged, never in an error message.
  const authorization = () => `Basic ${Buffer.from(`${config.pv}:${Redacted.value(config.token)}`).toString("base64")}`
  const call = (method: "GET" | "POST", path: string, body?: unknown) =>
    jsonCall({
      method,
      url: `${config.apiUrl}${path}`,
      headers: { Authorization: authorization() },
      body,
      timeoutMs: config.timeoutMs
    })

  const message = (answer: Answer) =>
    Either.match(Schema.decodeUnknownEither(RedeAnswer)(answer.body), {
      onLeft: () => `HTTP ${answer.status}`,
      onRight: (a) => `HTTP ${answer.status} ${a.returnCode} ${a.returnMessage ?? ""}`.trim()
    })

  const status = (reference: string): Effect.Effect<ChargeStatus, AcquirerUnavailable> =>
    Effect.gen(function* (): Effect.fn.Return<ChargeStatus, AcquirerUnavailable> {
      const answer = yield* call("GET", `/v1/transactions?reference=${encodeURIComponent(reference)}`).pipe(
        Effect.mapError((e) => unknown(e.message))
      )
      if (answer.status === 404) return { _tag: "NotReceived" } as const
      if (answer.status !== 200) return yield* unknown(`status query: ${message(answer)}`)
      const { authorization: a } = yield* decode(RedeQuery, "query", unknown)(answer.body)
      switch (a.status) {
        case "Approved":
        case "Canceled":
          // Canceled: charged, then refunded; it was charged once.
          return {
            _tag: "Approved",
            authorizationCode: a.authorizationCode ?? "",
            acquirerReference: a.tid,
            acquirer: REDE
          }
        case "Denied":
          return {
            _tag: "Declined",
            code: redeDecline(a.returnCode),
            message: a.returnMessage ?? "The card was declined."
          }
        case "Pending":
          return yield* unknown("the transaction is still pending at e.Rede")
      }
    }).pipe(withSpan("RedeAcquirer.status"))

  const afterLostAnswer = (reference: string, lost: string) =>
    status(reference).pipe(
      Effect.mapError((e) => unknown(`${lost}; then ${e.message}`)),
      Effect.flatMap((found) =>
        found._tag === "NotReceived"
          ? Effect.fail(notCharged(`${lost}; e.Rede says it never received the transaction`))
          : Effect.succeed(found as AuthorizationResult)
      )
    )

  const charge = (
    request: Parameters<Acquirer["Type"]["charge"]>[0]
  ): Effect.Effect<AuthorizationResult, AcquirerUnavailable> =>
    Effect.gen(function* () {
      const reference = request.idempotencyKey
      const sent = yield* call("POST", "/v1/transactions", {
        capture: true,
        kind: "credit",
        reference,
        amount: request.amount,
        // e.Rede: `installments` is 2–12 and left out for a single payment.
        ...(request.installments > 1 ? { installments: request.installments } : {}),
        ...cardFields(request.card)
      }).pipe(Effect.either)
      if (Either.isLeft(sent)) {
        if (sent.left._tag === "NotSent") return yield* notCharged(sent.left.message)
        return yield* afterLostAnswer(reference, sent.left.message)
      }
      const answer = sent.right
      // A 5xx is no proof that nothing was charged (e.Rede documents no 5xx as "not processed", and a
      // gateway in front of it may answer one after the transaction was made): a lost answer, asked by
      // reference as a timeout is. A transaction found is the answer; none is not_charged.
      if (answer.status >= 500) return yield* afterLostAnswer(reference, `HTTP ${answer.status}`)
      if (answer.status === 401 || answer.status === 403) return yield* notCharged(`HTTP ${answer.status}`)
      const decoded = Schema.decodeUnknownEither(RedeAnswer)(answer.body)
      if (Either.isLeft(decoded)) {
        // A 2xx we cannot read may have charged; anything else was refused.
        if (answer.status < 300) return yield* afterLostAnswer(reference, `unreadable HTTP ${answer.status}`)
        return yield* notCharged(`HTTP ${answer.status}`)
      }
      const a = decoded.right
      if (a.returnCode === REDE_APPROVED && answer.status < 300) {
        if (a.tid === undefined) return yield* afterLostAnswer(reference, "approval without tid")
        return {
          _tag: "Approved",
          authorizationCode: a.authorizationCode ?? "",
          acquirerReference: a.tid,
          acquirer: REDE
        }
      }
      // The reference was used before (a retry of this attempt): what e.Rede did with it is the answer.
      if (a.returnCode === REDE_DUPLICATE_REFERENCE) return yield* afterLostAnswer(reference, "reference already sent")
      // The card's own data refused: a decline, so neither another acquirer nor the breaker sees the buyer's typo.
      if (REDE_CARD_FIELD_CODES.has(a.returnCode)) {
        return { _tag: "Declined", code: "card_declined", message: "The card's data was refused by the acquirer." }
      }
      const declined = {
        _tag: "Declined",
        code: redeDecline(a.returnCode),
        message: a.returnMessage ?? "The card was declined."
      } as const
      // An issuer's decline, below 100 too (80 insufficient funds, 86 expired card…): never failed over.
      if (isDeclineCode(a.returnCode)) return declined
      if (isValidationCode(a.returnCode))
        return yield* notCharged(`refused: ${a.returnCode} ${a.returnMessage ?? ""}`.trim())
      return declined
    })

  return Acquirer.of({
    charge: (request) => charge(request).pipe(withSpan("RedeAcquirer.charge")),
    status: (idempotencyKey) => status(idempotencyKey),
    verify: (card) =>
      Effect.gen(function* () {
        // e.Rede's Zero Dollar: an authorisation of amount 0 without capture; 174 is success.
        const answer = yield* call("POST", "/v1/transactions", {
          capture: false,
          kind: "credit",
          reference: randomUUID().replace(/-/g, "").slice(0, 16),
          amount: 0,
          ...cardFields(card)
        }).pipe(Effect.mapError((e) => notCharged(e.message)))
        if (answer.status >= 500 || answer.status === 401 || answer.status === 403)
          return yield* notCharged(`zero dollar: HTTP ${answer.status}`)
        const a = yield* decode(RedeAnswer, "zero dollar", notCharged)(answer.body)
        if (a.returnCode === REDE_ZERO_DOLLAR_OK) return { _tag: "Verified" } as const
        if (isValidationCode(a.returnCode)) return yield* notCharged(`zero dollar refused: ${a.returnCode}`)
        return {
          _tag: "Rejected",
          code: redeDecline(a.returnCode),
          message: a.returnMessage ?? "The card was not verified."
        } as const
      }).pipe(withSpan("RedeAcquirer.verify")),
    refund: (request) =>
      Effect.gen(function* () {
        const path = `/v1/transactions/${encodeURIComponent(request.acquirerReference)}`
        // A refund carries no idempotency key: what was refunded before is read first, so that a lost
        // answer can be told apart (refunded by exactly this amount since, or not at all) without resending.
        const refundedOf = call("GET", path).pipe(
          Effect.mapError((e) => unknown(e.message)),
          Effect.flatMap((a) =>
            a.status === 200
              ? decode(RedeTransaction, "transaction", unknown)(a.body)
              : Effect.fail(unknown(message(a)))
          ),
          Effect.map((t) => t.refunds.filter((r) => r.status !== "Denied").reduce((sum, r) => sum + r.amount, 0))
        )
        const before = yield* Effect.option(refundedOf)
        /**
         * An answer that does not say whether the refund was made: what was refunded is read back. Nothing
         * more refunded is a refund not made, unless e.Rede said it accepted it (`accepted`: 360, made later),
         * when it is only not made *yet*: unknown, never "not refunded".
         */
        const readBack = (lost: string, accepted = false) =>
          Effect.gen(function* () {
            if (before._tag === "None") return yield* unknown(lost)
            const after = yield* refundedOf.pipe(Effect.mapError((e) => unknown(`${lost}; then ${e.message}`)))
            if (after === before.value + request.amount) return
            if (after === before.value && !accepted) return yield* notCharged(`${lost}; nothing was refunded`)
            if (after === before.value) return yield* unknown(`${lost}; not among the refunds yet`)
            return yield* unknown(`${lost}; the refunded amount moved by ${after - before.value}`)
          })
        const sent = yield* call("POST", `${path}/refunds`, { amount: request.amount }).pipe(Effect.either)
        if (Either.isLeft(sent)) {
          if (sent.left._tag === "NotSent") return yield* notCharged(sent.left.message)
          return yield* readBack(sent.left.message)
        }
        const answer = sent.right
        // A 5xx may come after e.Rede refunded (see the charge): read back, as for a lost answer.
        if (answer.status >= 500) return yield* readBack(`refund: HTTP ${answer.status}`)
        const a = Schema.decodeUnknownEither(RedeAnswer)(answer.body)
        // 360 "Refund request has been successful": e.Rede accepted the refund and makes it later, so it is
        // never a refusal, whatever the HTTP status (e.Rede's are not confirmed: the code is read). Read back:
        // among the refunds already, done; not yet, unknown (the refund stays PENDING for an operator).
        if (Either.isRight(a) && a.right.returnCode === REDE_REFUND_REQUESTED)
          return yield* readBack(`refund accepted, made later: ${message(answer)}`, true)
        // A 4xx refused it. A 2xx is e.Rede's "done" only with 359; any other code (VTEX's known issue 740084:
        // other codes on refunds e.Rede made) or an unreadable body is read back, as Cielo's unclear void is.
        if (answer.status >= 300) return yield* notCharged(`refund refused: ${message(answer)}`)
        if (Either.isRight(a) && a.right.returnCode === REDE_REFUNDED) return
        return yield* readBack(`refund not confirmed: ${message(answer)}`)
      }).pipe(withSpan("RedeAcquirer.refund"))
  })
}

/** e.Rede as the deployment's acquirer (ACQUIRER=rede), configured from REDE_* (docs/configuration.md). */
export const RedeAcquirerLive = Layer.effect(Acquirer, Effect.map(RedeConfigFromEnv, makeRedeAcquirer))
