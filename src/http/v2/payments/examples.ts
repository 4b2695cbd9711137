import { TransactionId } from "../../../domain/ids.ts"
/** Request and response examples for the OpenAPI document (sandbox test data). */
const buyerAddress = {
  postal_code: "01310100",
  street: "Avenida Paulista",
  number: "1578",
  neighborhood: "Bela Vista",
  city: "São Paulo",
  state: "SP"
} as const
const orderId = "3f0b1c2d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
const common = { orderId, amount: 15000, buyerDoc: "52998224725", buyerCellNumber: "(11) 91234-5678", buyerAddress }

export const processExamples = [
  { ...common, method: "PIX" as const },
  { ...common, method: "BOLETO" as const },
  {
    ...common,
    method: "CARD" as const,
    installments: 3,
    cardHolderName: "MARIA DA SILVA",
    cardNumber: "4242424242424242",
    cardExpirationMonth: "12",
    cardExpirationYear: "30",
    cardSecurityCode: "123",
    cardBrand: "Visa" as const,
    buyerBirthdate: "1990-05-17"
  },
  { ...common, method: "CARD" as const, installments: 1, cardToken: "card_0cWk3Zr9mQy5T1bV7nHq2LxP8sDfGj4aRtYu6EiOo1c" }
] as const

export const paymentResultExamples = [
  {
    transactionId: "7a1c9e2b-0d3f-4b5a-9c8e-1f2a3b4c5d6e",
    status: "PENDING" as const,
    method: "PIX" as const,
    amount: 15000,
    pix: {
      emv:
        "00020126580014br.gov.bcb.pix01367d9f0335-8dcc-4054-9bf9-0dbd61d36906520400005303986" +
        "5406150.005802BR5910Loja do Ze6009SAO PAULO62290525dad336011866416fba5deba426304DFB0",
      qrCodeUrl: "https://pay.example.com/documents/pix/UxQ07pD5vL2HGdzCoKom3FJAMuiVJqcCWn9FXMB8auc/qr.png",
      expiresAt: "2026-11-21T22:01:45.760Z"
    }
  },
  {
    transactionId: "027cf813-dec9-409f-833d-7ee6df778e38",
    status: "CAPTURED" as const,
    method: "CARD" as const,
    amount: 15000,
    installments: 3,
    card: { brand: "Visa", last4: "4242" }
  }
] as const

export const tokenizeExamples = [
  {
    customerId: "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e",
    doc: "52998224725",
    holderName: "MARIA DA SILVA",
    cardNumber: "5555555555554444",
    brand: "Mastercard" as const,
    expirationMonth: "08",
    expirationYear: "31",
    securityCode: "321",
    birthdate: "1990-05-17",
    cellNumber: "(11) 91234-5678",
    address: buyerAddress
  }
] as const

const refunded = TransactionId.make("027cf813-dec9-409f-833d-7ee6df778e38")
export const refundExamples = [
  { transactionId: refunded, amount: 5000, reason: "one item returned" },
  { transactionId: refunded }
] as const
