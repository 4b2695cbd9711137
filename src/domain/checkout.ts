import { formatDigitableLine } from "./boleto.ts"
import type { TransactionRecord } from "./transaction.ts"

/** What the buyer's page says of a transaction's state (CONTRACT-v1 §6). */
export type CheckoutState =
  "pending" | "processing" | "paid" | "expired" | "refused" | "failed" | "refunded" | "disputed"

export const checkoutState = (t: TransactionRecord): CheckoutState => {
  switch (t.status) {
    case "PENDING":
      return "pending"
    case "PROCESSING":
    case "ANTIFRAUD":
      return "processing"
    case "CAPTURED":
    case "PAID":
      return "paid"
    case "CANCELLED":
      return "expired"
    case "FAILED":
      return t.declineCode === "expired" ? "expired" : "failed"
    case "DECLINED":
      return "refused"
    case "PARTIAL_REFUND":
    case "REFUNDED":
      return "refunded"
    default:
      return "disputed"
  }
}

const brl = new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" })
const dateTime = new Intl.DateTimeFormat("pt-BR", {
  timeZone: "America/Sao_Paulo",
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit"
})

/** Centavos as a buyer reads them: `R$ 1.234,56`. */
export const formatBrl = (centavos: number) => brl.format(centavos / 100).replace(/\u00a0/g, " ")

/**
 * Everything the hosted page shows, and nothing else: no card number, CVV or document of the buyer,
 * only what the buyer needs to pay and see the outcome.
 */
export interface CheckoutView {
  readonly merchantName: string
  readonly amount: string
  readonly state: CheckoutState
  readonly method: "pix" | "billet" | "card"
  readonly products: ReadonlyArray<{ readonly name: string; readonly quantity: number; readonly total: string }>
  readonly pix?: { readonly qrPath: string; readonly code: string; readonly deadline: string }
  readonly billet?: { readonly digitableLine: string; readonly pdfPath: string; readonly dueDate: string }
  readonly card?: { readonly brand: string; readonly last4: string; readonly installments: number }
}

export const checkoutView = (merchantName: string, t: TransactionRecord): CheckoutView => {
  const { boleto, card, pix } = t.details
  return {
    merchantName,
    amount: formatBrl(t.amountTotal),
    state: checkoutState(t),
    method: t.method === "PIX" ? "pix" : t.method === "BOLETO" ? "billet" : "card",
    products: t.products.map((p) => ({
      name: p.name,
      quantity: p.quantity,
      total: formatBrl(p.unitPrice * p.quantity)
    })),
    ...(pix
      ? {
          pix: {
            qrPath: `/documents/pix/${pix.qrToken}/qr.png`,
            code: pix.emv,
            deadline: dateTime.format(new Date(pix.expiresAt))
          }
        }
      : {}),
    ...(boleto
      ? {
          billet: {
            digitableLine: formatDigitableLine(boleto.digitableLine),
            pdfPath: `/documents/boleto/${boleto.pdfToken}/boleto.pdf`,
            dueDate: boleto.dueDate.split("-").reverse().join("/")
          }
        }
      : {}),
    ...(card ? { card: { brand: card.brand, last4: card.last4, installments: t.installments ?? 1 } } : {})
  }
}
