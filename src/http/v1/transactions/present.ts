import { documentType } from "../../../domain/document.ts"
import { isoInSaoPaulo } from "../../../domain/time.ts"
import type { BoletoPayment, TransactionRecord } from "../../../domain/transaction.ts"
import type { TransactionView } from "../../../app/Transactions.ts"
import { documentUrls } from "../../v2/payments/present.ts"
import { refusalReason, V1_METHOD, V1_STATUS } from "../words.ts"

const at = (d: Date | null) => (d === null ? null : isoInSaoPaulo(d))

const customerOf = ({ customer, transaction: t }: TransactionView) => {
  if (t.buyer !== null) {
    const b = t.buyer
    return {
      name: b.name,
      email: b.email,
      phone: b.phone,
      document: b.document,
      document_type: b.documentType,
      ip: b.ip,
      zip_code: b.zipCode,
      street_name: b.streetName,
      number: b.number,
      complement: b.complement,
      neighborhood: b.neighborhood,
      city: b.city,
      state: b.state,
      country: b.country
    }
  }
  // A transaction made on /api shows its order's customer record (CONTRACT-v1 §2).
  return customer === null
    ? null
    : {
        name: customer.name,
        email: customer.email,
        phone: customer.phone,
        document: customer.document,
        document_type: documentType(customer.document)
      }
}

/** A billet's payment in v1's words: what was paid, on which day, and its parts (docs/boleto.md). */
export const v1BilletPayment = (p: BoletoPayment) => ({
  paid_on: p.paidOn,
  amount_paid: p.amount,
  principal: p.principal,
  fine: p.fine,
  interest: p.interest,
  discount: p.discount,
  abatement: p.abatement
})

const methodDetails = (baseUrl: string, t: TransactionRecord) => {
  const urls = documentUrls(baseUrl, t)
  const { boleto, card, pix, payment } = t.details
  return {
    ...(pix
      ? { pix: { qr_code: pix.emv, qr_code_url: urls.qrCodeUrl!, expires_at: at(new Date(pix.expiresAt)) } }
      : {}),
    ...(boleto
      ? {
          billet: {
            barcode: boleto.barcode,
            digitable_line: boleto.digitableLine,
            pdf_url: urls.pdfUrl!,
            due_date: boleto.dueDate,
            ...(payment === undefined ? {} : { payment: v1BilletPayment(payment) })
          }
        }
      : {}),
    ...(card ? { card: { brand: card.brand, last4: card.last4, holder_name: card.holderName } } : {})
  }
}

/** The v1 transaction (CONTRACT-v1 §2), for a transaction made through either interface. */
export const v1Transaction = (baseUrl: string, view: TransactionView) => {
  const t = view.transaction
  return {
    hash: t.id,
    status: V1_STATUS[t.status],
    method: V1_METHOD[t.method],
    amount: t.amount,
    installments: t.method === "CARD" ? (t.installments ?? 1) : 1,
    ...(t.details.maxInstallments === undefined ? {} : { max_installments: t.details.maxInstallments }),
    amount_interest: t.amountInterest,
    amount_total: t.amountTotal,
    refunded_amount: t.refundedAmount,
    customer: customerOf(view),
    products: t.products.map((p) => ({
      name: p.name,
      quantity: p.quantity,
      unit_price: p.unitPrice,
      sku: p.sku,
      link: p.link
    })),
    metadata: t.metadata ?? (t.orderId === null ? {} : { order_id: t.orderId }),
    comment: t.comment,
    ...methodDetails(baseUrl, t),
    split: t.split.map((s) =>
      s.amount !== null
        ? { subaccount_id: s.subaccountId, amount: s.amount }
        : { subaccount_id: s.subaccountId, percentage: s.percentage ?? 0 }
    ),
    refusal_reason: refusalReason(t.status, t.declineCode),
    checkout_url: t.details.checkoutToken ? `${baseUrl}/checkout/${t.details.checkoutToken}` : null,
    expires_at: at(t.expiresAt),
    paid_at: at(t.paidAt),
    created_at: at(t.createdAt),
    updated_at: at(t.updatedAt)
  }
}
export type V1Transaction = ReturnType<typeof v1Transaction>
