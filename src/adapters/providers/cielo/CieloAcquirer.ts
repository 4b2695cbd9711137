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
import { type Answer, jsonCall, type NoAnswer, type NotSent } from "../shared/jsonHttp.ts"
import { stableUuid } from "../shared/stableUuid.ts"
import { type CieloConfig, CieloConfigFromEnv } from "./config.ts"
import { APPROVED_RETURN_CODES, cieloDecline, VOID_APPROVED_RETURN_CODES } from "./returnCodes.ts"
import {
  cieloBrand,
  CieloErrors,
  PaymentStatus,
  type Sale,
  Sale as SaleSchema,
  SalesByOrder,
  VoidResponse,
  type VoidResponse as Void,
  ZeroAuthResponse
} from "./wire.ts"

/** The name recorded on the transactions Cielo charges (docs/providers.md). */
export const CIELO = "cielo"

const notCharged = (message: string) =>
  new AcquirerUnavailable({ message: `cielo: ${message}`, outcome: "not_charged" })
const unknown = (message: string) => new AcquirerUnavailable({ message: `cielo: ${message}`, outcome: "unknown" })

const decode =
  <A, I>(schema: Schema.Schema<A, I>, what: string, failure: (message: string) => AcquirerUnavailable) =>
  (body: unknown): Effect.Effect<A, AcquirerUnavailable> =>
    Schema.decodeUnknown(schema)(body).pipe(Effect.mapError(() => failure(`unexpected ${what} body`)))

/** Cielo's error list, for messages (codes and Cielo's own words; never card data). */
const errorsOf = (answer: Answer) =>
  Either.match(Schema.decodeUnknownEither(CieloErrors)(answer.body), {
    onLeft: () => `HTTP ${answer.status}`,
    onRight: (errors) => `HTTP ${answer.status} ${errors.map((e) => `${e.Code} ${e.Message}`).join("; ")}`
  })

/**
 * Cielo's 400 codes about the card's own fields, from the manual's table (DeveloperCielo/API-3.0
 * source/index.md, "Códigos de Erros da API"):
 *   117 Credit Card Holder is required          118 Credit Card Number is required
 *   125 Credit Card Expiration Date is required 126 Credit Card Expiration Date is invalid
 *   127 You must provide CreditCard Number      128 Card Number length exceeded
 *   146 SecurityCode length exceeded            174 Card Number is required
 *   177 Card Number is invalid                  182 Brand is required
 *   185 Brand is not supported by selected provider
 *   213 Credit Card Number is invalid           214 Credit Card Holder Must Have Only Letters
 * Not these: 129 "Affiliation not found" (the payment method is not linked to the store), 130 "Could not
 * get Credit Card", 131 "MerchantKey is required", nor any other code about our credentials or the
 * store's configuration: those are Cielo's or ours, so they fail over and count towards the breaker.
 */
const CARD_FIELD_CODES: ReadonlySet<number> = new Set([117, 118, 125, 126, 127, 128, 146, 174, 177, 182, 185, 213, 214])

const cardDataRefusal = (answer: Answer): AuthorizationResult | undefined => {
  if (answer.status !== 400) return undefined
  const errors = Schema.decodeUnknownOption(CieloErrors)(answer.body)
  if (errors._tag === "None" || !errors.value.some((e) => CARD_FIELD_CODES.has(e.Code))) return undefined
  return { _tag: "Declined", code: "card_declined", message: "The card's data was refused by the acquirer." }
}

const expiry = (card: CardData) => `${String(card.expMonth).padStart(2, "0")}/${card.expYear}`

/**
 * What a sale says about the charge. Success only when the ReturnCode is an approval AND the payment
 * is PaymentConfirmed (captured): HTTP 201 alone is not success (issue 24 §3). A voided or refunded
 * sale was charged once, so a status query reports it approved.
 */
export const saleOutcome = (sale: Sale): ChargeStatus | "pending" => {
  const p = sale.Payment
  const charged =
    p.Status === PaymentStatus.Voided ||
    p.Status === PaymentStatus.Refunded ||
    (p.Status === PaymentStatus.PaymentConfirmed && APPROVED_RETURN_CODES.has(p.ReturnCode ?? ""))
  if (charged) {
    return {
      _tag: "Approved",
      authorizationCode: p.AuthorizationCode ?? "",
      acquirerReference: p.PaymentId,
      acquirer: CIELO
    }
  }
  if (p.Status === PaymentStatus.Denied || p.Status === PaymentStatus.Aborted || p.Status === PaymentStatus.NotFinished)
    return {
      _tag: "Declined",
      code: cieloDecline(p.ReturnCode),
      message: p.ReturnMessage ?? "The card was declined."
    }
  // Authorized without capture, Pending, Scheduled: not an outcome we asked for; ask again later.
  return "pending"
}

/**
 * What a void's 2xx answer says. Done only when Cielo says it made it: a void ReturnCode ("9" full,
 * "0" partial), no ReasonCode but 0 (the full void's answer has none), and the sale now PaymentConfirmed
 * (a partial void leaves it so), Voided or Refunded. Anything else is not taken at its word, either way:
 * the adapter reads the voided amount back (the manual: "Apenas o campo STATUS deve ser considerado como
 * situação atual da transação", and its cancellation codes include 5 "Erro de efetivação", 98 "Timeout").
 */
export const voidOutcome = (answer: Void): "done" | "unclear" =>
  VOID_APPROVED_RETURN_CODES.has(answer.ReturnCode) &&
  (answer.ReasonCode === undefined || answer.ReasonCode === 0) &&
  [PaymentStatus.PaymentConfirmed, PaymentStatus.Voided, PaymentStatus.Refunded].some((s) => s === answer.Status)
    ? "done"
    : "unclear"

export const makeCieloAcquirer = (config: CieloConfig) => {
  // The credentials live only in these headers: never logged, never in an error message.
  const auth = (requestId: string) => ({
    MerchantId: config.merchantId,
    MerchantKey: Redacted.value(config.merchantKey),
    RequestId: requestId
  })
  const call = (
    method: "GET" | "POST" | "PUT",
    base: string,
    path: string,
    requestId: string,
    body?: unknown
  ): Effect.Effect<Answer, NotSent | NoAnswer> =>
    jsonCall({ method, url: `${base}${path}`, headers: auth(requestId), body, timeoutMs: config.timeoutMs })

  const readSale = (paymentId: string, requestId: string) =>
    call("GET", config.queryUrl, `/1/sales/${encodeURIComponent(paymentId)}`, requestId).pipe(
      Effect.mapError((e) => unknown(e.message)),
      Effect.flatMap((answer) =>
        answer.status === 200
          ? decode(SaleSchema, "sale", unknown)(answer.body)
          : Effect.fail(unknown(errorsOf(answer)))
      )
    )

  /** How much of a sale Cielo has voided so far. */
  const voidedOf = (paymentId: string, requestId: string) =>
    Effect.map(readSale(paymentId, requestId), (sale) => sale.Payment.VoidedAmount ?? 0)

  /** What Cielo did with the sales of this MerchantOrderId (our transaction id). */
  const status = (merchantOrderId: string): Effect.Effect<ChargeStatus, AcquirerUnavailable> =>
    Effect.gen(function* () {
      const requestId = stableUuid(CIELO, "status", merchantOrderId)
      const answer = yield* call(
        "GET",
        config.queryUrl,
        `/1/sales?merchantOrderId=${encodeURIComponent(merchantOrderId)}`,
        requestId
      ).pipe(Effect.mapError((e) => unknown(e.message)))
      if (answer.status === 404) return { _tag: "NotReceived" } as const
      if (answer.status !== 200) return yield* unknown(`status query: ${errorsOf(answer)}`)
      const { Payments } = yield* decode(SalesByOrder, "sales query", unknown)(answer.body)
      if (Payments.length === 0) return { _tag: "NotReceived" } as const
      // More than one sale for one order only if something retried outside our keys: a charged one wins.
      let declined: ChargeStatus | undefined
      for (const { PaymentId } of Payments) {
        const outcome = saleOutcome(yield* readSale(PaymentId, requestId))
        if (outcome === "pending") return yield* unknown("the sale is still pending at Cielo")
        if (outcome._tag === "Approved") return outcome
        declined = outcome
      }
      return declined!
    }).pipe(withSpan("CieloAcquirer.status"))

  /** A charge whose answer was lost: Cielo is asked before anything else happens (never retried blind). */
  const afterLostAnswer = (merchantOrderId: string, lost: string) =>
    status(merchantOrderId).pipe(
      Effect.mapError((e) => unknown(`${lost}; then ${e.message}`)),
      Effect.flatMap((found) =>
        found._tag === "NotReceived"
          ? Effect.fail(notCharged(`${lost}; Cielo says it never received the sale`))
          : Effect.succeed(found as AuthorizationResult)
      )
    )

  const sell = (
    request: Parameters<Acquirer["Type"]["charge"]>[0]
  ): Effect.Effect<AuthorizationResult, AcquirerUnavailable> =>
    Effect.gen(function* () {
      const { card, idempotencyKey } = request
      // One RequestId per attempt (this acquirer, this transaction), the same on every retry of it.
      const requestId = stableUuid(CIELO, "charge", idempotencyKey)
      const sent = yield* call("POST", config.apiUrl, "/1/sales", requestId, {
        MerchantOrderId: idempotencyKey,
        Customer: { Name: card.holderName },
        Payment: {
          Type: "CreditCard",
          Amount: request.amount,
          Installments: request.installments,
          Capture: true,
          CreditCard: {
            CardNumber: card.pan,
            Holder: card.holderName,
            ExpirationDate: expiry(card),
            ...(card.cvv === undefined ? {} : { SecurityCode: card.cvv }),
            Brand: cieloBrand[card.brand]
          }
        }
      }).pipe(Effect.either)
      if (Either.isLeft(sent)) {
        const failure = sent.left
        if (failure._tag === "NotSent") return yield* notCharged(failure.message)
        return yield* afterLostAnswer(idempotencyKey, failure.message)
      }
      const answer = sent.right
      // A 5xx is no proof that nothing was charged: the manual's "HTTP Status Code" lists only "500
      // Internal Server Error", and docs.cielo.com.br ("HTTP Codes") says 500/502/503 may come from an
      // internal failure; a gateway in front of Cielo may answer one after the sale was made. So it is a
      // lost answer, asked by MerchantOrderId as a timeout is: a sale found is the answer, none is not_charged.
      if (answer.status >= 500) return yield* afterLostAnswer(idempotencyKey, `HTTP ${answer.status}`)
      // The card's own data refused (number, holder, expiry, CVV, brand): a decline, so the buyer is told
      // and no other acquirer, nor the circuit breaker, sees what the buyer typed.
      const refused = cardDataRefusal(answer)
      if (refused !== undefined) return refused
      // Only an answer outside 2xx is a refusal before a sale exists (a 4xx: the manual's "Códigos de Erros da
      // API"). Any 2xx is Cielo accepting the sale, whichever one it is (a 202 whose body says Status 2, ReturnCode
      // 6 is a captured sale): its body is read as a 201's is, never taken as "nothing charged".
      if (answer.status < 200 || answer.status >= 300) return yield* notCharged(errorsOf(answer))
      const sale = yield* decode(SaleSchema, "sale", unknown)(answer.body).pipe(Effect.either)
      // Accepted but unreadable (any 2xx, an empty 204 too): it may have charged, so Cielo is asked.
      if (Either.isLeft(sale))
        return yield* afterLostAnswer(idempotencyKey, `HTTP ${answer.status}: ${sale.left.message}`)
      const outcome = saleOutcome(sale.right)
      if (outcome === "pending") return yield* afterLostAnswer(idempotencyKey, "sale not confirmed")
      if (outcome._tag === "NotReceived") return yield* notCharged("no sale")
      return outcome
    })

  return Acquirer.of({
    charge: (request) =>
      Effect.gen(function* () {
        // Cielo has no idempotency key: a charge that may have reached it before is looked up first.
        if (request.sentBefore) {
          const known = yield* status(request.idempotencyKey)
          if (known._tag !== "NotReceived") return known
        }
        return yield* sell(request)
      }).pipe(withSpan("CieloAcquirer.charge")),
    status: (idempotencyKey) => status(idempotencyKey),
    verify: (card) =>
      Effect.gen(function* () {
        const answer = yield* call("POST", config.apiUrl, "/1/zeroauth", randomUUID(), {
          CardType: "CreditCard",
          CardNumber: card.pan,
          Holder: card.holderName,
          ExpirationDate: expiry(card),
          ...(card.cvv === undefined ? {} : { SecurityCode: card.cvv }),
          SaveCard: "false",
          Brand: cieloBrand[card.brand]
        }).pipe(Effect.mapError((e) => notCharged(e.message)))
        if (answer.status !== 200 && answer.status !== 201) return yield* notCharged(`zero auth: ${errorsOf(answer)}`)
        const result = yield* decode(ZeroAuthResponse, "zero auth", notCharged)(answer.body)
        return result.Valid
          ? ({ _tag: "Verified" } as const)
          : ({
              _tag: "Rejected",
              code: cieloDecline(result.ReturnCode),
              message: result.ReturnMessage ?? "The card was not verified."
            } as const)
      }).pipe(withSpan("CieloAcquirer.verify")),
    refund: (request) =>
      Effect.gen(function* () {
        const requestId = stableUuid(CIELO, "refund", request.idempotencyKey)
        // A void carries no idempotency key: what was voided before is read first, so that a lost
        // answer can be told apart (voided by exactly this amount since, or not at all) without resending.
        const voidedBefore = yield* Effect.option(voidedOf(request.acquirerReference, requestId))
        /** An answer that does not say whether the void was made: what was voided is read back. */
        const readBack = (lost: string) =>
          Effect.gen(function* () {
            if (voidedBefore._tag === "None") return yield* unknown(lost)
            const after = yield* voidedOf(request.acquirerReference, requestId).pipe(
              Effect.mapError((e) => unknown(`${lost}; then ${e.message}`))
            )
            if (after === voidedBefore.value + request.amount) return
            if (after === voidedBefore.value) return yield* notCharged(`${lost}; nothing was voided`)
            return yield* unknown(`${lost}; the voided amount moved by ${after - voidedBefore.value}`)
          })
        const sent = yield* call(
          "PUT",
          config.apiUrl,
          `/1/sales/${encodeURIComponent(request.acquirerReference)}/void?amount=${request.amount}`,
          requestId
        ).pipe(Effect.either)
        if (Either.isLeft(sent)) {
          if (sent.left._tag === "NotSent") return yield* notCharged(sent.left.message)
          return yield* readBack(sent.left.message)
        }
        const answer = sent.right
        // A 5xx may come after Cielo voided (see the charge): read back, as for a lost answer.
        if (answer.status >= 500) return yield* readBack(`refund: HTTP ${answer.status}`)
        // Only a 4xx is refused: one of the manual's "Erros da API", answered before anything was done.
        if (answer.status >= 400) return yield* notCharged(`refund refused: ${errorsOf(answer)}`)
        // Any 2xx is Cielo accepting the void, whichever one it is (a 202 whose body says Status 10, ReturnCode 9
        // is a void made), so its body decides as a 200's does; anything else outside 2xx says nothing: read back.
        if (answer.status < 200 || answer.status >= 300) return yield* readBack(`refund: HTTP ${answer.status}`)
        const voided = Schema.decodeUnknownEither(VoidResponse)(answer.body)
        if (Either.isLeft(voided)) return yield* readBack(`refund: unexpected void body (HTTP ${answer.status})`)
        const v = voided.right
        if (voidOutcome(v) === "done") return
        const reason = v.ReasonCode === undefined ? "" : ` ReasonCode ${v.ReasonCode}`
        return yield* readBack(`refund not confirmed: Status ${v.Status} ReturnCode ${v.ReturnCode}${reason}`)
      }).pipe(withSpan("CieloAcquirer.refund"))
  })
}

/** Cielo as the deployment's acquirer (ACQUIRER=cielo), configured from CIELO_* (docs/configuration.md). */
export const CieloAcquirerLive = Layer.effect(Acquirer, Effect.map(CieloConfigFromEnv, makeCieloAcquirer))
