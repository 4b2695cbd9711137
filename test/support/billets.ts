import { expect } from "vitest"
import type { Client } from "./http.ts"

/** The payer of the boleto tests: a CNPJ, as a shop's B2B slip names it. */
export const billetCustomer = { name: "Beatriz Souza", email: "bia@example.com", document: "11.222.333/0001-81" }

/**
 * A v1 billet of R$ 1.000,00 due `due`, with the terms the hand-computed vectors use (docs/boleto.md):
 * fine 2 %, interest 1 % a month, a fixed R$ 50,00 discount until `discountUntil`. Its hash.
 */
export const termsBillet = async (api: Client, token: string, due: string, discountUntil: string) => {
  const created = await api.post(
    "/public/v1/transactions",
    {
      method: "billet",
      amount: 100_000,
      expires_at: `${due}T12:00:00-03:00`,
      customer: billetCustomer,
      billet: {
        fine: { type: "percentage", value: 2 },
        interest: { type: "percentage_per_month", value: 1 },
        discounts: [{ type: "fixed", value: 5_000, until: discountUntil }]
      }
    },
    { token }
  )
  expect(created.status, created.text).toBe(201)
  return created.body.data.hash as string
}

/** Pays it at the sandbox bank (`query`: date, amount) and waits for the confirmation job to settle it. */
export const payBilletAndWait = async (api: Client, key: string, hash: string, query: string) => {
  const paid = await api.post(`/api/sandbox/transactions/${hash}/pay?${query}`, undefined, { key })
  expect(paid.status, paid.text).toBe(202)
  for (let i = 0; i < 100; i++) {
    const t = await api.get(`/public/v1/transactions/${hash}`, { token: key })
    if (t.body.data.status === "paid") return t.body.data
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`${hash} never paid`)
}
