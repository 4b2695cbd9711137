import type { CreateTransactionWire } from "./command.ts"

/**
 * Request and response examples of /public/v1 for the OpenAPI document and /docs. A request example is
 * accepted as it stands, today and later (test/api.openapi-truth.test.ts posts each): it names no date
 * that could pass.
 */
const customer = {
  name: "Maria Silva",
  email: "maria@example.com",
  document: "123.456.789-09",
  phone: "(11) 91234-5678",
  ip: "203.0.113.7"
}

export const createExamples: readonly [CreateTransactionWire, ...Array<CreateTransactionWire>] = [
  {
    method: "pix",
    amount: 15000,
    customer,
    products: [{ name: "Camiseta", quantity: 2, unit_price: 7500, sku: "CAM-01" }],
    metadata: { order_id: "1234", origin: "site" }
  },
  // No `expires_at`: the default due date (BOLETO_DUE_DAYS). A fixed date in an example is refused once it has
  // passed, and a date computed when the document is built would make the document change by the day.
  { method: "billet", amount: 8990, customer },
  {
    method: "credit_card",
    amount: 30000,
    installments: 3,
    customer,
    card: { number: "4242424242424242", holder_name: "MARIA SILVA", exp_month: "12", exp_year: "2030", cvv: "123" }
  }
]

export const transactionExample = {
  hash: "7d9f0335-8dcc-4054-9bf9-0dbd61d36906",
  status: "pending",
  method: "pix" as const,
  amount: 15000,
  installments: 1,
  amount_interest: 0,
  amount_total: 15000,
  refunded_amount: 0,
  customer: {
    name: "Maria Silva",
    email: "maria@example.com",
    phone: "11912345678",
    document: "12345678909",
    document_type: "cpf" as const,
    ip: "203.0.113.7"
  },
  products: [{ name: "Camiseta", quantity: 2, unit_price: 7500, sku: "CAM-01", link: null }],
  metadata: { order_id: "1234", origin: "site" },
  comment: null,
  pix: {
    qr_code: "00020126580014br.gov.bcb.pix0136…6304ABCD",
    qr_code_url: "https://pay.example.com/documents/pix/…/qr.png",
    expires_at: "2026-11-22T10:15:00-03:00"
  },
  split: [],
  refusal_reason: null,
  checkout_url: "https://pay.example.com/checkout/…",
  expires_at: "2026-11-22T10:15:00-03:00",
  paid_at: null,
  created_at: "2026-11-22T09:15:00-03:00",
  updated_at: "2026-11-22T09:15:00-03:00"
}
