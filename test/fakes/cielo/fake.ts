import { randomInt, randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { expired, faultQueue, listen, luhn, readBody, sendJson, withFault } from "../shared/server.ts"

/**
 * A local Cielo API 3.0 (e-commerce) that follows Cielo's published behaviour, for the adapter's
 * conformance kit, the end-to-end tests and `npm run fake -- cielo`:
 *
 * - two hosts, as Cielo has: transactional (`POST /1/sales`, `PUT /1/sales/{id}/void`, `POST /1/zeroauth`)
 *   and query (`GET /1/sales/{id}`, `GET /1/sales?merchantOrderId=`); both check MerchantId/MerchantKey;
 * - the sandbox's outcome by the card's last digit (docs.cielo.com.br "cartões para teste simulado"):
 *   0/1/4 authorised, 2 → 05, 3 → 57, 5 → 78, 6 → 99, 7 → 77, 8 → 70, 9 → authorised or 99 at random;
 *   an expiry in the past → 57;
 * - zero auth: valid only for a card starting with 5 and ending in 0 (the current sandbox page);
 * - a repeated RequestId on `POST /1/sales`: Cielo does not document what it does, so by default the
 *   fake does the worst (a second sale, a second capture) and the adapter must not rely on it: it asks
 *   by MerchantOrderId before sending again. `duplicateRequestIds("replay" | "reject")` switches to
 *   replaying the first answer, or to a 409, to check the adapter under either reading;
 * - request errors with the codes of the manual's table (DeveloperCielo/API-3.0 source/index.md, "Códigos
 *   de Erros da API"): 117 holder, 118 number missing, 213 number invalid, 125/126 expiry, 146 security
 *   code, 182/185 brand, 102 payment type, 108 amount, 122 MerchantOrderId, 123 installments;
 * - voids answered as the manual shows them: a full void `{Status: 10, ReturnCode: "9", ReturnMessage,
 *   Links}` with no ReasonCode ("Cancelamento total"), a partial one with Status 2, ReasonCode 0 and
 *   ReturnCode "0" ("Cancelamento parcial");
 * - faults on demand per operation (timeout before accepting, 5xx before acting, 5xx after acting, commit
 *   then drop, slow answer), a listener that can be taken down (connection refused), refunds refused on
 *   demand (ReturnCode 17 of docs.cielo.com.br "Códigos de Retorno de Cancelamento": a dispute exists).
 *
 * Card numbers are never kept: a sale stores the masked number, as Cielo's answers show it.
 */

export type CieloOp = "sale" | "query" | "void" | "zeroauth"

export interface FakeSale {
  readonly merchantOrderId: string
  readonly requestId: string | undefined
  readonly payment: {
    PaymentId: string
    Status: number
    Amount: number
    CapturedAmount: number
    VoidedAmount: number
    Installments: number
    ReturnCode: string
    ReturnMessage: string
    AuthorizationCode?: string
    ProofOfSale: string
    Tid: string
    Type: "CreditCard"
    Currency: "BRL"
    Country: "BRA"
    Capture: boolean
    CreditCard: { CardNumber: string; Holder: string; ExpirationDate: string; Brand: string }
  }
}

export interface FakeCieloOptions {
  readonly merchantId?: string
  readonly merchantKey?: string
  readonly apiPort?: number
  readonly queryPort?: number
}

const DIGIT_OUTCOMES: Record<string, { code: string; message: string } | "approve"> = {
  "0": "approve",
  "1": "approve",
  "4": "approve",
  "2": { code: "05", message: "Não Autorizada" },
  "3": { code: "57", message: "Cartão Expirado" },
  "5": { code: "78", message: "Cartão Bloqueado" },
  "6": { code: "99", message: "Time Out" },
  "7": { code: "77", message: "Cartão Cancelado" },
  "8": { code: "70", message: "Problemas com o Cartão de Crédito" }
}

const BRANDS = new Set(["Visa", "Master", "Amex", "Elo", "Aura", "JCB", "Diners", "Discover", "Hipercard", "Hiper"])

const mask = (pan: string) => `${pan.slice(0, 6)}${"*".repeat(pan.length - 10)}${pan.slice(-4)}`

const errors = (...list: Array<[number, string]>) => list.map(([Code, Message]) => ({ Code, Message }))

export const startFakeCielo = async (options: FakeCieloOptions = {}) => {
  const merchantId = options.merchantId ?? randomUUID()
  const merchantKey = options.merchantKey ?? randomUUID().replace(/-/g, "").toUpperCase()
  const faults = faultQueue<CieloOp>()
  const sales: Array<FakeSale> = []
  const replies = new Map<string, unknown>()
  let refuseRefunds = false
  let duplicates: "new-sale" | "replay" | "reject" = "new-sale"
  /** Every request seen (method, path, RequestId): never the body, never the key. */
  const seen: Array<{
    readonly host: "api" | "query"
    readonly method: string
    readonly path: string
    readonly requestId: string | undefined
  }> = []

  const authorised = (req: IncomingMessage) =>
    req.headers["merchantid"] === merchantId && req.headers["merchantkey"] === merchantKey

  const header = (req: IncomingMessage, name: string) => {
    const value = req.headers[name]
    return typeof value === "string" ? value : undefined
  }

  const createSale = (body: any, requestId: string | undefined): { status: number; body: unknown } => {
    const payment = body?.Payment
    const card = payment?.CreditCard
    const problems: Array<[number, string]> = []
    if (
      typeof body?.MerchantOrderId !== "string" ||
      body.MerchantOrderId.length === 0 ||
      body.MerchantOrderId.length > 50
    )
      problems.push([122, "MerchantOrderId is required"])
    // The codes and messages are the manual's ("Códigos de Erros da API").
    if (payment?.Type !== "CreditCard") problems.push([102, "Payment Type is required"])
    if (!Number.isSafeInteger(payment?.Amount) || payment.Amount <= 0)
      problems.push([108, "Amount must be greater or equal to zero"])
    if (!Number.isSafeInteger(payment?.Installments) || payment.Installments < 1 || payment.Installments > 12)
      problems.push([123, "Installments must be greater or equal to one"])
    if (typeof card?.CardNumber !== "string" || card.CardNumber.length === 0)
      problems.push([118, "Credit Card Number is required"])
    else if (!luhn(card.CardNumber)) problems.push([213, "Credit Card Number is invalid"])
    if (typeof card?.Holder !== "string" || card.Holder.length === 0)
      problems.push([117, "Credit Card Holder is required"])
    const exp = typeof card?.ExpirationDate === "string" ? /^(\d{2})\/(\d{4})$/.exec(card.ExpirationDate) : null
    if (card?.ExpirationDate === undefined) problems.push([125, "Credit Card Expiration Date is required"])
    else if (exp === null || Number(exp[1]) < 1 || Number(exp[1]) > 12)
      problems.push([126, "Credit Card Expiration Date is invalid"])
    if (card?.SecurityCode !== undefined && !/^\d{3,4}$/.test(card.SecurityCode))
      problems.push([146, "SecurityCode length exceeded"])
    if (card?.Brand === undefined) problems.push([182, "Brand is required"])
    else if (!BRANDS.has(card.Brand)) problems.push([185, "Brand is not supported by selected provider"])
    if (problems.length > 0) return { status: 400, body: errors(...problems) }

    const pan: string = card.CardNumber
    let outcome = expired(Number(exp![1]), Number(exp![2]))
      ? { code: "57", message: "Cartão Expirado" }
      : DIGIT_OUTCOMES[pan.slice(-1)]
    if (outcome === undefined) outcome = randomInt(2) === 0 ? "approve" : { code: "99", message: "Time Out" }
    const capture = payment.Capture === true
    const approved = outcome === "approve"
    const sale: FakeSale = {
      merchantOrderId: body.MerchantOrderId,
      requestId,
      payment: {
        PaymentId: randomUUID(),
        Status: approved ? (capture ? 2 : 1) : 3,
        Amount: payment.Amount,
        CapturedAmount: approved && capture ? payment.Amount : 0,
        VoidedAmount: 0,
        Installments: payment.Installments,
        ReturnCode: approved ? (capture ? "6" : "4") : (outcome as { code: string }).code,
        ReturnMessage: approved ? "Operation Successful" : (outcome as { message: string }).message,
        ...(approved ? { AuthorizationCode: String(randomInt(0, 1_000_000)).padStart(6, "0") } : {}),
        ProofOfSale: String(randomInt(0, 1_000_000)),
        Tid: String(randomInt(1e12, 1e13 - 1)),
        Type: "CreditCard",
        Currency: "BRL",
        Country: "BRA",
        Capture: capture,
        CreditCard: {
          CardNumber: mask(pan),
          Holder: card.Holder,
          ExpirationDate: card.ExpirationDate,
          Brand: card.Brand
        }
      }
    }
    sales.push(sale)
    return { status: 201, body: saleBody(sale) }
  }

  const saleBody = (sale: FakeSale) => ({
    MerchantOrderId: sale.merchantOrderId,
    Customer: { Name: sale.payment.CreditCard.Holder },
    Payment: { ...sale.payment }
  })

  const apiHandler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake")
    const requestId = header(req, "requestid")
    const text = await readBody(req)
    if (url.pathname === "/__fake/faults" && req.method === "POST") {
      const { op, fault, times } = JSON.parse(text)
      faults.inject(op, fault, times)
      return sendJson(res, 204)
    }
    seen.push({ host: "api", method: req.method ?? "", path: url.pathname, requestId })
    if (!authorised(req)) return sendJson(res, 401, errors([114, "The provided MerchantId is not in correct format"]))
    let body: unknown
    try {
      body = text.length === 0 ? undefined : JSON.parse(text)
    } catch {
      return sendJson(res, 400, errors([0, "Malformed JSON"]))
    }
    if (req.method === "POST" && url.pathname === "/1/sales") {
      if (requestId !== undefined && replies.has(requestId)) {
        if (duplicates === "replay") return sendJson(res, 201, replies.get(requestId))
        if (duplicates === "reject") return sendJson(res, 409, errors([0, "Duplicated RequestId"]))
      }
      return withFault(faults.take("sale"), res, () => {
        const answer = createSale(body, requestId)
        if (answer.status === 201 && requestId !== undefined) replies.set(requestId, answer.body)
        return answer
      })
    }
    const voidPath = /^\/1\/sales\/([^/]+)\/void$/.exec(url.pathname)
    if (req.method === "PUT" && voidPath) {
      return withFault(faults.take("void"), res, () => {
        const sale = sales.find((s) => s.payment.PaymentId === voidPath[1])
        if (sale === undefined) return { status: 404 }
        const p = sale.payment
        const remaining = p.CapturedAmount - p.VoidedAmount
        const amount = url.searchParams.has("amount") ? Number(url.searchParams.get("amount")) : remaining
        if (!Number.isSafeInteger(amount) || amount <= 0)
          return { status: 400, body: errors([108, "Amount must be greater or equal to zero"]) }
        // The manual does not say how a void beyond what is left is answered: its table's void refusal.
        if (amount > remaining) return { status: 400, body: errors([309, "Transaction not available to void"]) }
        const self = { Method: "GET", Rel: "self", Href: `${query.url()}/1/sales/${p.PaymentId}` }
        if (refuseRefunds) {
          return {
            status: 200,
            body: {
              Status: p.Status,
              ReturnCode: "17",
              ReturnMessage:
                "Cancelamento não executado. Existe cancelamento/contestação total ou parcial para esta venda.",
              Links: [self]
            }
          }
        }
        p.VoidedAmount += amount
        if (p.VoidedAmount === p.CapturedAmount) {
          // The manual's "Cancelamento total" answer, exactly: no ReasonCode.
          p.Status = 10
          return {
            status: 200,
            body: { Status: 10, ReturnCode: "9", ReturnMessage: "Operation Successful", Links: [self] }
          }
        }
        // The manual's "Cancelamento parcial" answer: the sale stays PaymentConfirmed.
        return {
          status: 200,
          body: {
            Status: p.Status,
            ReasonCode: 0,
            ReasonMessage: "Successful",
            ProviderReturnCode: "0",
            ProviderReturnMessage: "Operation Successful",
            ReturnCode: "0",
            ReturnMessage: "Operation Successful",
            Links: [self, { Method: "PUT", Rel: "void", Href: `${api.url()}/1/sales/${p.PaymentId}/void` }]
          }
        }
      })
    }
    if (req.method === "POST" && url.pathname === "/1/zeroauth") {
      return withFault(faults.take("zeroauth"), res, () => {
        const card = body as any
        const exp = typeof card?.ExpirationDate === "string" ? /^(\d{2})\/(\d{4})$/.exec(card.ExpirationDate) : null
        if (typeof card?.CardNumber !== "string" || !luhn(card.CardNumber) || exp === null)
          return { status: 400, body: errors([213, "Credit Card Number is invalid"]) }
        if (expired(Number(exp[1]), Number(exp[2])))
          return { status: 200, body: { Valid: false, ReturnCode: "57", ReturnMessage: "Cartão Expirado" } }
        const valid = card.CardNumber.startsWith("5") && card.CardNumber.endsWith("0")
        return {
          status: 200,
          body: valid
            ? {
                Valid: true,
                ReturnCode: "00",
                ReturnMessage: "Transacao autorizada",
                IssuerTransactionId: String(randomInt(1e9))
              }
            : { Valid: false, ReturnCode: "05", ReturnMessage: "Não Autorizada" }
        }
      })
    }
    sendJson(res, 404)
  }

  const queryHandler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake")
    await readBody(req)
    seen.push({ host: "query", method: req.method ?? "", path: url.pathname, requestId: header(req, "requestid") })
    if (!authorised(req)) return sendJson(res, 401, errors([114, "The provided MerchantId is not in correct format"]))
    if (req.method !== "GET") return sendJson(res, 405)
    if (url.pathname === "/1/sales" && url.searchParams.has("merchantOrderId")) {
      const id = url.searchParams.get("merchantOrderId")
      return withFault(faults.take("query"), res, () => {
        const found = sales.filter((s) => s.merchantOrderId === id)
        if (found.length === 0) return { status: 404 }
        return {
          status: 200,
          body: {
            Payments: found.map((s) => ({ PaymentId: s.payment.PaymentId, ReceveidDate: new Date().toISOString() }))
          }
        }
      })
    }
    const one = /^\/1\/sales\/([^/]+)$/.exec(url.pathname)
    if (one) {
      const sale = sales.find((s) => s.payment.PaymentId === one[1])
      return sale === undefined ? sendJson(res, 404) : sendJson(res, 200, saleBody(sale))
    }
    sendJson(res, 404)
  }

  const api = await listen(apiHandler, options.apiPort)
  const query = await listen(queryHandler, options.queryPort)

  return {
    merchantId,
    merchantKey,
    api,
    query,
    faults,
    /** The env the gateway needs to use this fake (docs/configuration.md). */
    env: (): Record<string, string> => ({
      CIELO_MERCHANT_ID: merchantId,
      CIELO_MERCHANT_KEY: merchantKey,
      CIELO_API_URL: api.url(),
      CIELO_QUERY_URL: query.url()
    }),
    sales: (): ReadonlyArray<FakeSale> => sales,
    /** Sales captured for a MerchantOrderId (Status 2, 10 or 11): the "exactly one capture" assertion. */
    captures: (merchantOrderId: string) =>
      sales.filter((s) => s.merchantOrderId === merchantOrderId && s.payment.CapturedAmount > 0),
    /** What was voided of a sale (PaymentId), in centavos. */
    refunded: (paymentId: string) => sales.find((s) => s.payment.PaymentId === paymentId)?.payment.VoidedAmount ?? 0,
    seen: () => seen,
    duplicateRequestIds: (mode: "new-sale" | "replay" | "reject") => {
      duplicates = mode
    },
    refuseRefunds: (on: boolean) => {
      refuseRefunds = on
    },
    close: async () => {
      await Promise.all([api.close(), query.close()])
    }
  }
}

export type FakeCielo = Awaited<ReturnType<typeof startFakeCielo>>
