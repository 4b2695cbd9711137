import type { BoletoPayment, TransactionRecord } from "../../../domain/transaction.ts"
import { presentTerms } from "../../shared/chargeTerms.ts"

/** A boleto's payment in v2's words: what was paid, on which day, its parts and, for a bolepix, the rail. */
const v2BoletoPayment = (p: BoletoPayment) => ({
  paidOn: p.paidOn,
  amountPaid: p.amount,
  principal: p.principal,
  fine: p.fine,
  interest: p.interest,
  discount: p.discount,
  abatement: p.abatement,
  ...(p.rail === undefined ? {} : { rail: p.rail })
})

/** Absolute buyer URLs under PUBLIC_BASE_URL. */
export const documentUrls = (baseUrl: string, t: TransactionRecord) => ({
  qrCodeUrl: t.details.pix ? `${baseUrl}/documents/pix/${t.details.pix.qrToken}/qr.png` : undefined,
  pdfUrl: t.details.boleto ? `${baseUrl}/documents/boleto/${t.details.boleto.pdfToken}/boleto.pdf` : undefined
})

const methodDetails = (baseUrl: string, t: TransactionRecord) => {
  const urls = documentUrls(baseUrl, t)
  const { boleto, card, payment, pix } = t.details
  return {
    // A bolepix shows both: its slip under `boleto` and its due-date PIX charge under `pix`.
    ...(pix ? { pix: { emv: pix.emv, qrCodeUrl: urls.qrCodeUrl!, expiresAt: pix.expiresAt } } : {}),
    ...(boleto
      ? {
          boleto: {
            barcode: boleto.barcode,
            digitableLine: boleto.digitableLine,
            pdfUrl: urls.pdfUrl!,
            dueDate: boleto.dueDate,
            ...(boleto.terms === undefined ? {} : { terms: presentTerms(boleto.terms, "v2") }),
            ...(payment === undefined ? {} : { payment: v2BoletoPayment(payment) })
          }
        }
      : {}),
    ...(card ? { card: { brand: card.brand, last4: card.last4 } } : {})
  }
}

/** The Payment result of interface-v2 (process). */
/**
 * `amount` is the "original charged amount" (interface-v2): what the buyer was charged, amount_total. The
 * two differ only for a card charge made on /public/v1 with installments bearing interest (CONTRACT-v1 §4);
 * shown as amount_total, its full refund leaves `refundedAmount` equal to `amount`, as interface-v2 says
 * (docs/api.md "Both interfaces, one transaction").
 */
export const paymentResult = (baseUrl: string, t: TransactionRecord) => ({
  transactionId: t.id,
  status: t.status,
  method: t.method,
  amount: t.amountTotal,
  ...(t.installments === null ? {} : { installments: t.installments }),
  ...methodDetails(baseUrl, t)
})

/** GET /api/payment-gateway/transaction/{id}: the Transaction plus what its method left. */
export const transactionDetail = (baseUrl: string, t: TransactionRecord) => ({
  id: t.id,
  orderId: t.orderId,
  method: t.method,
  amount: t.amountTotal,
  status: t.status,
  refundedAmount: t.refundedAmount,
  ...(t.installments === null ? {} : { installments: t.installments }),
  paidAt: t.paidAt?.toISOString() ?? null,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
  ...methodDetails(baseUrl, t),
  declineCode: t.declineCode
})
