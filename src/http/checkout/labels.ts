import type { CheckoutState } from "../../domain/checkout.ts"

/**
 * The badge of each state, in pt-BR: written into the page by the server (it reads right before any
 * script runs) and handed to the page's script, which switches it when the status changes.
 */
export const STATE_LABELS: Record<CheckoutState, string> = {
  pending: "Aguardando pagamento",
  processing: "Em análise",
  paid: "Pagamento confirmado",
  expired: "Prazo expirado",
  refused: "Pagamento recusado",
  failed: "Pagamento não processado",
  partially_refunded: "Estorno parcial",
  refunded: "Pagamento estornado",
  disputed: "Pagamento em contestação"
}
