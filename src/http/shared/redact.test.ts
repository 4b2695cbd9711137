import { describe, expect, it } from "vitest"
import { redactBody, redactUrl } from "./redact.ts"

describe("redactBody (the request log's bodies)", () => {
  it("replaces card numbers, CVV, tokens and secrets under their keys, at any depth", () => {
    const body = {
      amount: 100,
      card: { number: "4242424242424242", cvv: "123", holder_name: "MARIA" },
      cardToken: "tok_abc",
      cardSecurityCode: "9731",
      api_token: "sk_live_x",
      nested: [{ password: "hunter2", secret: "whsec_abc", kept: "ok" }]
    }
    expect(JSON.parse(redactBody(JSON.stringify(body)))).toEqual({
      amount: 100,
      card: { number: "[REDACTED]", cvv: "[REDACTED]", holder_name: "MARIA" },
      cardToken: "[REDACTED]",
      cardSecurityCode: "[REDACTED]",
      api_token: "[REDACTED]",
      nested: [{ password: "[REDACTED]", secret: "[REDACTED]", kept: "ok" }]
    })
  })
  it("finds a card number anywhere (Luhn), spaced or as a number; leaves other digits alone", () => {
    const out = redactBody(
      JSON.stringify({ note: "card 4111 1111 1111 1111 here", n: 4242424242424242, cpf: "52998224725", x: "1234" })
    )
    expect(out).not.toContain("4111")
    expect(out).not.toContain("4242")
    expect(JSON.parse(out)).toMatchObject({ cpf: "52998224725", x: "1234" })
    expect(redactBody("not json 4242424242424242")).toBe("not json [REDACTED]")
    // A 47-digit boleto line is no card number, not even in parts.
    const line = "23793381286000000000300000000401184340000010000"
    expect(redactBody(JSON.stringify({ line }))).toContain(line)
  })
  it("redactUrl still hides credentials in the query", () => {
    expect(redactUrl("/x?a=1&api_token=sk_live_abc")).toBe("/x?a=1&api_token=[REDACTED]")
  })
})
