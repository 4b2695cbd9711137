import { formatDigitableLine } from "./boleto.ts"
import { amountDue, instructionLines } from "./chargeTerms.ts"
import { type InstallmentRules, installmentOptions } from "./installments.ts"
import { saoPauloDate } from "./time.ts"
import { refundBase, type TransactionRecord } from "./transaction.ts"

/** What the buyer's page says of a transaction's state (CONTRACT-v1 §6). */
export type CheckoutState =
  "pending" | "processing" | "paid" | "expired" | "refused" | "failed" | "partially_refunded" | "refunded" | "disputed"

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
    // The buyer kept part of the purchase: "estornado" alone would tell them all of it came back (issue 23).
    case "PARTIAL_REFUND":
      return "partially_refunded"
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
  minute: "2-digit",
  hourCycle: "h23"
})

/**
 * Centavos as a buyer reads them: `R$ 1.234,56`, with the no-break space Intl puts after "R$", so that
 * the symbol never wraps apart from its value (issue 23).
 */
export const formatBrl = (centavos: number) => brl.format(centavos / 100).replace(/\s/g, "\u00a0")

/**
 * A deadline as a buyer in any time zone reads it: the São Paulo wall clock, named as such
 * ("25/11/2026 às 23:59 (horário de Brasília)"); America/Sao_Paulo has no daylight saving since 2019.
 */
export const formatDeadline = (at: Date) => {
  const parts = Object.fromEntries(dateTime.formatToParts(at).map((p) => [p.type, p.value]))
  return `${parts.day}/${parts.month}/${parts.year} às ${parts.hour}:${parts.minute} (horário de Brasília)`
}

/**
 * The plan a card was charged on, in the buyer's words: "à vista", "3x de R$ 34,59" (the Price table
 * makes every installment equal), or, interest-free with a remainder, the first one apart (CONTRACT-v1 §4:
 * floor(N / n), the first carries the remainder).
 */
export const installmentPlan = (total: number, n: number) => {
  if (n <= 1) return "à vista"
  const each = Math.floor(total / n)
  const first = total - each * (n - 1)
  return first === each
    ? `${n}x de ${formatBrl(each)}`
    : `${n}x: a 1ª de ${formatBrl(first)} e ${n - 1}x de ${formatBrl(each)}`
}

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
  /** Present once anything was refunded: what went back to the buyer and what the merchant kept. */
  readonly refund?: { readonly refunded: string; readonly kept: string }
  readonly pix?: { readonly qrPath: string; readonly code: string; readonly deadline: string }
  readonly billet?: {
    readonly digitableLine: string
    readonly pdfPath: string
    readonly dueDate: string
    /** With charge terms: what it asks if paid today, and the terms as the slip prints them. */
    readonly amountToday?: string
    readonly instructions?: ReadonlyArray<string>
  }
  /**
   * A card charge created without a card (docs/checkout.md "Hosted card form"): the page shows the form,
   * with the plan the merchant chose (its total from the installment table).
   */
  readonly cardForm?: {
    readonly installments: number
    readonly plan: string
    /** The plans the buyer chooses from (1..`maxInstallments`, as offered); absent when the merchant fixed it. */
    readonly options?: ReadonlyArray<{ readonly installments: number; readonly plan: string; readonly total: string }>
  }
  /** Why a card was refused, in the buyer's words (pt-BR); absent otherwise. */
  readonly reason?: string
  readonly card?: {
    readonly brand: string
    readonly last4: string
    readonly installments: number
    readonly plan: string
  }
}

/** The buyer-readable reason of a refused or failed card (CONTRACT-v1 §2 decline codes). */
export const REFUSAL_TEXT: Readonly<Record<string, string>> = {
  card_declined: "O banco emissor do cartão recusou o pagamento.",
  insufficient_funds: "O cartão não tem saldo ou limite suficiente.",
  expired_card: "O cartão está vencido.",
  incorrect_cvc: "O código de segurança (CVV) não confere.",
  fraud_suspected: "O pagamento não passou na análise de segurança.",
  processing_error: "Houve uma falha ao processar o pagamento."
}

/** The plans of a charge whose buyer chooses: the installment table's offered options up to its maximum. */
const planOptions = (t: TransactionRecord, rules: InstallmentRules | undefined) => {
  const max = t.details.maxInstallments
  if (max === undefined || rules === undefined) return undefined
  return installmentOptions(t.amount, rules)
    .filter((o) => o.installment <= max)
    .map((o) => ({
      installments: o.installment,
      plan: installmentPlan(o.total, o.installment),
      total: formatBrl(o.total)
    }))
}

export const checkoutView = (
  merchantName: string,
  t: TransactionRecord,
  today?: string,
  rules?: InstallmentRules
): CheckoutView => {
  const { boleto, card, pix } = t.details
  const installments = t.installments ?? 1
  const state = checkoutState(t)
  const reason =
    (state === "refused" || state === "failed") && t.declineCode !== null ? REFUSAL_TEXT[t.declineCode] : undefined
  return {
    ...(t.method === "CARD" && !card && t.status === "PENDING"
      ? {
          cardForm: {
            installments,
            plan: installmentPlan(t.amountTotal, installments),
            ...(planOptions(t, rules) === undefined ? {} : { options: planOptions(t, rules)! })
          }
        }
      : {}),
    ...(reason ? { reason } : {}),
    merchantName,
    amount: formatBrl(t.amountTotal),
    state: checkoutState(t),
    method: t.method === "PIX" ? "pix" : t.method === "BOLETO" ? "billet" : "card",
    products: t.products.map((p) => ({
      name: p.name,
      quantity: p.quantity,
      total: formatBrl(p.unitPrice * p.quantity)
    })),
    ...(t.refundedAmount > 0
      ? { refund: { refunded: formatBrl(t.refundedAmount), kept: formatBrl(refundBase(t) - t.refundedAmount) } }
      : {}),
    ...(pix
      ? {
          pix: {
            qrPath: `/documents/pix/${pix.qrToken}/qr.png`,
            code: pix.emv,
            deadline: formatDeadline(new Date(pix.expiresAt))
          }
        }
      : {}),
    ...(boleto
      ? {
          billet: {
            digitableLine: formatDigitableLine(boleto.digitableLine),
            pdfPath: `/documents/boleto/${boleto.pdfToken}/boleto.pdf`,
            dueDate: boleto.dueDate.split("-").reverse().join("/"),
            ...(boleto.terms !== undefined && today !== undefined
              ? {
                  amountToday: formatBrl(amountDue(t.amount, boleto.dueDate, boleto.terms, today).total),
                  instructions: instructionLines(
                    t.amount,
                    boleto.dueDate,
                    boleto.terms,
                    t.expiresAt === null ? boleto.dueDate : saoPauloDate(t.expiresAt)
                  )
                }
              : {})
          }
        }
      : {}),
    ...(card
      ? {
          card: {
            brand: card.brand,
            last4: card.last4,
            installments,
            plan: installmentPlan(t.amountTotal, installments)
          }
        }
      : {})
  }
}
