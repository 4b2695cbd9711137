import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client } from "./support/http.ts"
import { freshCpf } from "./support/payments.ts"
import { pdfTextRuns } from "./support/pdfText.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The boleto names the merchant the buyer pays (issue 23 item 3; docs/boleto.md): the gateway as
 * beneficiário, the merchant's trade name and CPF/CNPJ as sacador/avalista on both halves, and a filled
 * payer's receipt. Read from the PDF the buyer downloads, through HTTP.
 */

let server: TestServer
let api: Client
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
})
afterAll(async () => {
  await server?.close()
})

const signupWith = async (name: string, document?: string) => {
  const reply = await api.post("/api/auth/signup", {
    name,
    email: `boleto-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
    password: "correct horse battery",
    ...(document === undefined ? {} : { document })
  })
  return reply
}

const billetPdf = async (key: string, payer: string, payerDocument: string) => {
  const created = await api.post(
    "/public/v1/transactions",
    { method: "billet", amount: 15_000, customer: { name: payer, email: "ana@example.com", document: payerDocument } },
    { token: key }
  )
  expect(created.status, created.text).toBe(201)
  const response = await fetch(created.body.data.billet.pdf_url)
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toBe("application/pdf")
  return { runs: pdfTextRuns(Buffer.from(await response.arrayBuffer())), transaction: created.body.data }
}

describe("the boleto PDF names the merchant", () => {
  it("gateway as beneficiário, merchant name and CNPJ as sacador/avalista, the payer receipt filled", async () => {
    const signed = await signupWith("Loja da Ana", "11.222.333/0001-81")
    expect(signed.status, signed.text).toBe(201)
    const key = signed.body.apiKey.fullKey as string
    const payerDocument = freshCpf()
    const { runs } = await billetPdf(key, "Beatriz Souza", payerDocument)
    const formattedPayer = `CPF ${payerDocument.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, "$1.$2.$3-$4")}`

    // Beneficiário: the gateway, on the receipt and on the ficha.
    expect(runs).toContain("Payment Gateway Sandbox")
    expect(runs).toContain("Payment Gateway Sandbox — CNPJ 00.000.000/0001-91")
    // Sacador/avalista: the merchant, by name and document, on the receipt (two cells) and on the ficha.
    expect(runs).toContain("Sacador / Avalista (beneficiário final)")
    expect(runs).toContain("Loja da Ana")
    expect(runs).toContain("CNPJ 11.222.333/0001-81")
    expect(runs).toContain("Loja da Ana — CNPJ 11.222.333/0001-81")
    // The payer's receipt: payer, nosso número (receipt and ficha), instructions naming the shop.
    expect(runs).toContain("Recibo do Pagador")
    expect(runs).toContain("Beatriz Souza")
    expect(runs).toContain(formattedPayer)
    expect(runs).toContain(`Beatriz Souza — ${formattedPayer}`)
    const ourNumberLabels = runs.filter((r) => r === "Nosso número").length
    expect(ourNumberLabels).toBe(2)
    const ourNumberIndex = runs.indexOf("Nosso número")
    expect(runs[ourNumberIndex + 1]).toMatch(/^\d+$/)
    expect(runs).toContain("Pagamento de compra em Loja da Ana. Dúvidas sobre a compra: fale com a loja.")
  })

  it("a merchant without a document is named alone; a wrong document at signup is a 400 naming it", async () => {
    const signed = await signupWith("Loja Sem Documento")
    expect(signed.status, signed.text).toBe(201)
    const { runs } = await billetPdf(signed.body.apiKey.fullKey, "Carlos Lima", freshCpf())
    expect(runs).toContain("Loja Sem Documento")
    expect(runs.some((r) => r.startsWith("Loja Sem Documento — "))).toBe(false)

    const wrong = await signupWith("Loja Errada", "11.222.333/0001-82")
    expect(wrong.status, wrong.text).toBe(400)
    expect(wrong.body.errors).toEqual([
      { field: "document", message: expect.stringContaining("must be a valid CPF or CNPJ") }
    ])
  })
})
