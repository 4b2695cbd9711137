import type { StoredEvent } from "../../domain/events.ts"
import { isoInSaoPaulo } from "../../domain/time.ts"
import { v1BilletPayment } from "./transactions/present.ts"
import { refusalReason, V1_METHOD, V1_STATUS } from "./words.ts"

/** The v1 event body (CONTRACT-v1 §5), built from the snapshot taken when the event happened. */
export const v1EventPayload = ({ createdAt, name, snapshot: t }: StoredEvent) => ({
  event: name,
  created_at: isoInSaoPaulo(createdAt),
  data: {
    hash: t.id,
    status: V1_STATUS[t.status],
    method: V1_METHOD[t.method],
    amount: t.amount,
    amount_total: t.amountTotal,
    refunded_amount: t.refundedAmount,
    paid_at: t.paidAt === null ? null : isoInSaoPaulo(new Date(t.paidAt)),
    metadata: t.metadata ?? {},
    refusal_reason: refusalReason(t.status, t.declineCode),
    ...(t.payment === undefined ? {} : { billet_payment: v1BilletPayment(t.payment) })
  }
})
