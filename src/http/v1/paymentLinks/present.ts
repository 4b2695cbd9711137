import { linkRefusal, type PaymentLinkRecord } from "../../../domain/paymentLink.ts"
import { isoInSaoPaulo } from "../../../domain/time.ts"
import { V1_LINK_METHOD } from "./command.ts"

/** The buyer's URL of a link (docs/payment-links.md): served by the same process, under /pay. */
export const linkUrl = (publicBaseUrl: string, link: PaymentLinkRecord) =>
  `${publicBaseUrl.replace(/\/$/, "")}/pay/${link.id}`

/** The v1 payment link, timestamps with São Paulo's offset; `status` says whether it takes visits now. */
export const v1PaymentLink = (publicBaseUrl: string, l: PaymentLinkRecord, now: Date) => ({
  id: l.id,
  url: linkUrl(publicBaseUrl, l),
  name: l.name,
  description: l.description,
  amount: l.amount,
  min_amount: l.minAmount,
  max_amount: l.maxAmount,
  items: l.items.map((i) => ({ name: i.name, quantity: i.quantity, unit_price: i.unitPrice, sku: i.sku })),
  payment_methods: l.methods.map((m) => V1_LINK_METHOD[m]),
  max_installments: l.maxInstallments,
  expires_at: l.expiresAt === null ? null : isoInSaoPaulo(l.expiresAt),
  max_uses: l.maxUses,
  uses: l.uses,
  active: l.active,
  status: linkRefusal(l, now) ?? ("active" as const),
  metadata: l.metadata ?? {},
  created_at: isoInSaoPaulo(l.createdAt),
  updated_at: isoInSaoPaulo(l.updatedAt)
})
