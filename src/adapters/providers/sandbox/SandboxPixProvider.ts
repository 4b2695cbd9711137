import { Effect, Layer } from "effect"
import { ProviderUnavailable } from "../../../domain/errors.ts"
import { OUTAGE_AMOUNT } from "./testCards.ts"
import { buildBrCode } from "../../../domain/brcode.ts"
import {
  PixProvider,
  type PixChargeRequest,
  type PixDueChargeRequest,
  type PixRefundState
} from "../../../ports/PixProvider.ts"
import { withSpan } from "../../../spans.ts"

// The sandbox PSP issues static BR Codes: a dynamic one points at a charge payload (a signed JWS) hosted by
// the PSP, which the sandbox does not have. The expiry is therefore not in the code; the gateway enforces it.

/** A random-looking but fixed EVP (random key) of no real account. */
export const SANDBOX_PIX_KEY = "7d9f0335-8dcc-4054-9bf9-0dbd61d36906"

/**
 * The BCB manual limits the txid of a static code to 25 alphanumerics. A UUID without its dashes is 32 hex
 * digits; the first 25 still carry ~96 random bits, so the txid stays unique and the same for a retry.
 */
export const txidOf = (transactionId: string): string => transactionId.replace(/[^A-Za-z0-9]/g, "").slice(0, 25)

// buildBrCode keeps printable ASCII only; a name written only in other scripts would leave nothing.
const orFallback = (s: string, fallback: string) =>
  /[A-Za-z0-9]/.test(s.normalize("NFD").replace(/[^\x20-\x7E]/g, "")) ? s : fallback

const createCharge = (request: PixChargeRequest) => {
  const txid = txidOf(request.transactionId)
  const emv = buildBrCode({
    pixKey: SANDBOX_PIX_KEY,
    merchantName: orFallback(request.merchantName, "SANDBOX"),
    merchantCity: orFallback(request.merchantCity, "SAO PAULO"),
    amountCents: request.amount,
    txid
  })
  return { emv, txid }
}

/**
 * A bolepix's PIX side: a static code too, for the boleto's principal. The terms are the gateway's to apply
 * (a real PSP's cobv computes the amount due that day; the sandbox's buyer pays through the sandbox route,
 * which asks the amount due by the same terms: docs/boleto.md "Bolepix").
 */
const createDueCharge = (request: PixDueChargeRequest) => ({
  ...createCharge({
    transactionId: request.transactionId,
    amount: request.amount,
    expiresAt: new Date(0),
    merchantName: request.merchantName,
    merchantCity: request.merchantCity
  }),
  key: SANDBOX_PIX_KEY
})

const returned = (refundId: string, amount: number): PixRefundState => ({
  refundId,
  amount,
  status: "RETURNED",
  settledAt: null,
  reason: null
})

const outage = () =>
  new ProviderUnavailable({
    provider: "pix",
    message: "the PIX provider is unavailable; retry later",
    retryAfterSeconds: 30
  })

/**
 * The sandbox PSP. The due-date charges it withdrew are remembered in this process (its `chargeStatus` then
 * says so, and withdrawing again answers the same); the sandbox's buyer pays a bolepix's QR through the
 * gateway's sandbox route, never through here, so that route still takes a payment after the withdrawal —
 * a PIX that raced it — and test mode shows the return path (docs/boleto.md "Bolepix").
 */
export const SandboxPixProviderLive = Layer.sync(PixProvider, () => {
  const withdrawn = new Set<string>()
  return PixProvider.of({
    // buildBrCode throws only on input the API has already validated: a defect if it ever happens.
    createCharge: (request) =>
      (request.amount === OUTAGE_AMOUNT ? Effect.fail(outage()) : Effect.sync(() => createCharge(request))).pipe(
        withSpan("SandboxPixProvider.createCharge")
      ),
    createDueCharge: (request) =>
      (request.amount === OUTAGE_AMOUNT ? Effect.fail(outage()) : Effect.sync(() => createDueCharge(request))).pipe(
        withSpan("SandboxPixProvider.createDueCharge")
      ),
    // The sandbox's buyer pays through the gateway's own sandbox route (CONTRACT §7), never at a PSP:
    // its charges stay open here, nothing is ever received, and a refund is returned at once.
    chargeStatus: (txid) =>
      Effect.sync(() => ({
        txid,
        status: withdrawn.has(txid) ? ("REMOVED_BY_RECEIVER" as const) : ("OPEN" as const),
        payments: []
      })).pipe(withSpan("SandboxPixProvider.chargeStatus")),
    cancelCharge: (txid) =>
      Effect.succeed({ txid, status: "REMOVED_BY_RECEIVER" as const, payments: [] }).pipe(
        withSpan("SandboxPixProvider.cancelCharge")
      ),
    withdrawDueCharge: (txid) =>
      Effect.sync(() => {
        withdrawn.add(txid)
        return { txid, status: "REMOVED_BY_RECEIVER" as const, payments: [] }
      }).pipe(withSpan("SandboxPixProvider.withdrawDueCharge")),
    refund: ({ amount, refundId }) =>
      Effect.succeed(returned(refundId, amount)).pipe(withSpan("SandboxPixProvider.refund")),
    refundStatus: ({ refundId }) =>
      Effect.succeed(returned(refundId, 0)).pipe(withSpan("SandboxPixProvider.refundStatus")),
    registerNotifications: () => Effect.void.pipe(withSpan("SandboxPixProvider.registerNotifications")),
    receivedPayments: () => Effect.succeed([]).pipe(withSpan("SandboxPixProvider.receivedPayments"))
  })
})
