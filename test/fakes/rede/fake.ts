import { randomInt, randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { expired, faultQueue, listen, luhn, readBody, sendJson, withFault } from "../shared/server.ts"

/**
 * A local e.Rede v1 (`/v1/transactions`, HTTP Basic PV:token) for the adapter's conformance kit, the
 * end-to-end tests and `npm run fake -- rede`:
 *
 * - `POST /v1/transactions` authorises (and captures when `capture: true`); `amount: 0` without capture
 *   is the Zero Dollar verification (174 success, 175 denied);
 * - `GET /v1/transactions?reference=` answers the authorisation recorded for a reference, 404 if none;
 * - `POST /v1/transactions/{tid}/refunds` refunds part or all (359), never more than captured;
 * - a reference already used → 122 "Transaction previously sent", nothing new recorded;
 * - outcomes: e.Rede's sandbox publishes approved cards only, so the declines are this fake's own table
 *   (docs/providers.md): expiry in the past → 112, a number ending in 9995 → 111, CVV 999 → 119, a
 *   number ending in 2 → 101; every other Luhn-valid card is approved;
 * - the same faults as the other fakes (timeout, 5xx before acting, 5xx after acting, commit then drop,
 *   slow, listener down), refunds refused on demand. Card numbers are never kept.
 */

export type RedeOp = "transaction" | "query" | "refund"

interface FakeTransaction {
  readonly reference: string
  readonly tid: string
  readonly amount: number
  readonly captured: boolean
  readonly returnCode: string
  readonly returnMessage: string
  readonly authorizationCode: string | undefined
  refunded: number
  readonly refunds: Array<{ readonly refundId: string; readonly amount: number; readonly status: "Done" }>
}

const answer = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
  returnCode: code,
  returnMessage: message,
  ...extra
})

export interface FakeRedeOptions {
  readonly pv?: string
  readonly token?: string
  readonly port?: number
}

export const startFakeRede = async (options: FakeRedeOptions = {}) => {
  const pv = options.pv ?? String(randomInt(10_000_000, 99_999_999))
  const token = options.token ?? randomUUID().replace(/-/g, "")
  const expected = `Basic ${Buffer.from(`${pv}:${token}`).toString("base64")}`
  const faults = faultQueue<RedeOp>()
  const transactions: Array<FakeTransaction> = []
  let refuseRefunds = false
  const seen: Array<{ readonly method: string; readonly path: string }> = []

  const authorise = (body: any): { status: number; body: unknown } => {
    const problems: Array<[string, string]> = []
    if (typeof body?.reference !== "string" || body.reference.length === 0 || body.reference.length > 50)
      problems.push(["36", "reference: Invalid parameter size."])
    if (!Number.isSafeInteger(body?.amount) || body.amount < 0)
      problems.push(["1", "amount: Invalid parameter format."])
    if (
      body?.installments !== undefined &&
      (!Number.isSafeInteger(body.installments) || body.installments < 2 || body.installments > 12)
    )
      problems.push(["10", "installments: Invalid parameter format."])
    if (typeof body?.cardNumber !== "string" || !luhn(body.cardNumber))
      problems.push(["37", "cardNumber: Invalid parameter format."])
    if (!Number.isSafeInteger(body?.expirationMonth) || body.expirationMonth < 1 || body.expirationMonth > 12)
      problems.push(["39", "expirationMonth: Invalid parameter format."])
    if (!Number.isSafeInteger(body?.expirationYear)) problems.push(["42", "expirationYear: Invalid parameter format."])
    if (typeof body?.cardholderName !== "string" || body.cardholderName.length === 0)
      problems.push(["28", "cardholderName: Required parameter missing."])
    if (body?.kind !== "credit") problems.push(["20", "kind: Invalid parameter format."])
    if (problems.length > 0) return { status: 400, body: answer(problems[0]![0], problems[0]![1]) }
    if (transactions.some((t) => t.reference === body.reference))
      return { status: 400, body: answer("122", "Transaction previously sent.") }

    const pan: string = body.cardNumber
    const zeroDollar = body.amount === 0
    if (zeroDollar && body.capture !== false)
      return { status: 400, body: answer("63", "capture: Invalid parameter format.") }
    const decline: [string, string] | undefined = expired(body.expirationMonth, body.expirationYear)
      ? ["112", "Unauthorized. Expiry date expired."]
      : pan.endsWith("9995")
        ? ["111", "Unauthorized. Insufficient funds."]
        : body.securityCode === "999"
          ? ["119", "Unauthorized. Invalid security code."]
          : pan.endsWith("2")
            ? ["101", "Unauthorized. Problems on the card, contact the issuer."]
            : undefined
    const tid = String(randomInt(1e9, 1e10 - 1)) + String(randomInt(1e9, 1e10 - 1))
    if (zeroDollar) {
      // A verification is not a sale: nothing is recorded under its reference.
      return decline
        ? { status: 402, body: answer("175", "Zero dollar transaction denied.") }
        : { status: 200, body: answer("174", "Zero dollar transaction success.", { reference: body.reference, tid }) }
    }
    const t: FakeTransaction = {
      reference: body.reference,
      tid,
      amount: body.amount,
      captured: decline === undefined && body.capture === true,
      returnCode: decline?.[0] ?? "00",
      returnMessage: decline?.[1] ?? "Success.",
      authorizationCode: decline ? undefined : String(randomInt(0, 1_000_000)).padStart(6, "0"),
      refunded: 0,
      refunds: []
    }
    transactions.push(t)
    return {
      status: decline ? 402 : 201,
      body: answer(t.returnCode, t.returnMessage, {
        reference: t.reference,
        tid: t.tid,
        nsu: String(randomInt(1e8, 1e9 - 1)),
        ...(t.authorizationCode ? { authorizationCode: t.authorizationCode } : {}),
        amount: t.amount,
        ...(body.installments ? { installments: body.installments } : {}),
        cardBin: pan.slice(0, 6),
        last4: pan.slice(-4)
      })
    }
  }

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake")
    const text = await readBody(req)
    if (url.pathname === "/__fake/faults" && req.method === "POST") {
      const { op, fault, times } = JSON.parse(text)
      faults.inject(op, fault, times)
      return sendJson(res, 204)
    }
    seen.push({ method: req.method ?? "", path: url.pathname })
    if (req.headers.authorization !== expected) return sendJson(res, 401, answer("25", "Unauthorized."))
    let body: any
    try {
      body = text.length === 0 ? undefined : JSON.parse(text)
    } catch {
      return sendJson(res, 400, answer("0", "Malformed JSON."))
    }
    if (url.pathname === "/v1/transactions" && req.method === "POST") {
      return withFault(faults.take("transaction"), res, () => authorise(body))
    }
    if (url.pathname === "/v1/transactions" && req.method === "GET") {
      const reference = url.searchParams.get("reference")
      return withFault(faults.take("query"), res, () => {
        const t = transactions.find((x) => x.reference === reference)
        if (t === undefined) return { status: 404, body: answer("78", "Transaction does not exist.") }
        return {
          status: 200,
          body: {
            requestDateTime: new Date().toISOString(),
            authorization: {
              returnCode: t.returnCode,
              returnMessage: t.returnMessage,
              status: t.returnCode !== "00" ? "Denied" : t.refunded === t.amount ? "Canceled" : "Approved",
              tid: t.tid,
              ...(t.authorizationCode ? { authorizationCode: t.authorizationCode } : {}),
              reference: t.reference,
              amount: t.amount,
              kind: "Credit"
            }
          }
        }
      })
    }
    const one = /^\/v1\/transactions\/([^/]+)$/.exec(url.pathname)
    if (one && req.method === "GET") {
      const t = transactions.find((x) => x.tid === one[1])
      if (t === undefined) return sendJson(res, 404, answer("78", "Transaction does not exist."))
      return sendJson(res, 200, {
        authorization: { returnCode: t.returnCode, tid: t.tid, reference: t.reference, amount: t.amount },
        refunds: t.refunds
      })
    }
    const refund = /^\/v1\/transactions\/([^/]+)\/refunds$/.exec(url.pathname)
    if (refund && req.method === "POST") {
      return withFault(faults.take("refund"), res, () => {
        const t = transactions.find((x) => x.tid === refund[1])
        if (t === undefined || !t.captured) return { status: 404, body: answer("78", "Transaction does not exist.") }
        const amount = body?.amount
        if (!Number.isSafeInteger(amount) || amount <= 0)
          return { status: 400, body: answer("1", "amount: Invalid parameter format.") }
        if (amount > t.amount - t.refunded) return { status: 422, body: answer("355", "Transaction already canceled.") }
        if (refuseRefunds)
          return { status: 422, body: answer("357", "Sum of amount refunded is greater than transaction amount.") }
        t.refunded += amount
        const refundId = randomUUID()
        t.refunds.push({ refundId, amount, status: "Done" })
        return {
          status: 201,
          body: answer("359", "Refund successful.", { refundId, tid: t.tid, nsu: String(randomInt(1e8, 1e9 - 1)) })
        }
      })
    }
    sendJson(res, 404, answer("404", "Not found."))
  }

  const server = await listen(handler, options.port)
  return {
    pv,
    token,
    server,
    faults,
    env: (): Record<string, string> => ({ REDE_PV: pv, REDE_TOKEN: token, REDE_API_URL: server.url() }),
    /** Captured transactions of a reference: the "exactly one capture" assertion. */
    captures: (reference: string) => transactions.filter((t) => t.reference === reference && t.captured),
    refunded: (tid: string) => transactions.find((t) => t.tid === tid)?.refunded ?? 0,
    seen: () => seen,
    refuseRefunds: (on: boolean) => {
      refuseRefunds = on
    },
    close: () => server.close()
  }
}

export type FakeRede = Awaited<ReturnType<typeof startFakeRede>>
