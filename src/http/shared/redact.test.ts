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
  it("takes a 17 to 19-digit JSON number for a card number: parsed, it no longer holds the digits Luhn needs", () => {
    // 6362970000457013 is a 16-digit Elo test card; 4000000000000000006 a 19-digit Visa (Luhn-valid as sent).
    const body = '{"metadata":{"a":4000000000000000006,"b":99999999999999999,"c":6362970000457013,"d":123456789012}}'
    const out = redactBody(body)
    expect(out).not.toContain("4000000000000000")
    expect(out).not.toContain("636297000045")
    expect(JSON.parse(out).metadata).toEqual({ a: "[REDACTED]", b: "[REDACTED]", c: "[REDACTED]", d: 123456789012 })
  })
  it("keeps no secret of a body that is not JSON: broken, cut short, single-quoted or a form", () => {
    const body = JSON.stringify({
      amount: 1000,
      card: { cvv: "739", number: "4111111111111111", exp_month: "08", exp_year: "2031", holder_name: "MARIA" },
      cardExpirationMonth: "08",
      cardExpirationYear: "2031",
      api_token: "sk_live_q8x"
    })
    const secrets = ["739", "4111", "2031", "sk_live", '"08"', ":08"]
    const broken = [
      body.replace(/}$/, ",}"),
      body.replace(/"/g, "'"),
      body.replace(/"([a-z_A-Z]+)":/g, "$1:"),
      "cvv=739&card_number=4111111111111111&exp_year=2031&api_token=sk_live_q8x&cardExpirationMonth=08",
      // Every cut of the body: a client's timeout, a proxy's limit.
      ...Array.from({ length: body.length - 1 }, (_, i) => body.slice(0, i + 1))
    ]
    for (const text of broken) {
      const stored = redactBody(text)
      for (const secret of secrets) {
        // A cut inside a value leaves only its first characters, which are redacted too.
        if (stored.includes(secret)) throw new Error(`${JSON.stringify(text)} kept ${secret}: ${stored}`)
      }
    }
    // Nested and percent-encoded form fields, lists and objects under a secret key, a document in a string.
    const more = [
      "card[cvv]=739&card[exp_year]=2031&card[number]=4111111111111111&amount=1000",
      "card%5Bcvv%5D=739&card%5Bexp_year%5D=2031&amount=1000",
      "card%5Bnumber%5D=4111-1111-1111&card%5Bexpiry%5D=2031",
      '{"card":{"cvv":["739"],"exp_month":[8],"exp_year":{"y":2031}},}',
      JSON.stringify({ note: JSON.stringify({ cvv: "739", api_token: "sk_live_q8x" }) }),
      JSON.stringify({ metadata: { raw: "cvv=739&exp_year=2031" } })
    ]
    for (const text of more) {
      const stored = redactBody(text)
      for (const secret of ["739", "2031", "4111", "sk_live"]) {
        if (stored.includes(secret)) throw new Error(`${JSON.stringify(text)} kept ${secret}: ${stored}`)
      }
    }
    expect(redactBody(more[0]!)).toBe(
      "card[cvv]=[REDACTED]&card[exp_year]=[REDACTED]&card[number]=[REDACTED]&amount=1000"
    )
    expect(redactBody(more[1]!)).toBe("card%5Bcvv%5D=[REDACTED]&card%5Bexp_year%5D=[REDACTED]&amount=1000")
    // What is not secret stays readable, to show the merchant what was wrong.
    expect(redactBody(body.replace(/}$/, ",}"))).toContain('"holder_name":"MARIA"')
    expect(redactBody(body.replace(/}$/, ",}"))).toContain('"amount":1000')
  })
  it("redacts v2's card expiry fields and the tokenize body's", () => {
    const body = { cardExpirationMonth: "08", cardExpirationYear: "2031", expirationMonth: 8, expirationYear: 2031 }
    const out = JSON.parse(redactBody(JSON.stringify(body)))
    expect(Object.values(out)).toEqual(["[REDACTED]", "[REDACTED]", "[REDACTED]", "[REDACTED]"])
  })
  it("redactUrl still hides credentials in the query", () => {
    expect(redactUrl("/x?a=1&api_token=sk_live_abc")).toBe("/x?a=1&api_token=[REDACTED]")
    expect(redactUrl("/x?API_TOKEN=sk_live_abc&b=2")).toBe("/x?API_TOKEN=[REDACTED]&b=2")
    expect(redactUrl("/x?apiToken=a&token=b&api_key=c")).toBe(
      "/x?apiToken=[REDACTED]&token=[REDACTED]&api_key=[REDACTED]"
    )
    expect(redactUrl("/x?a=1")).toBe("/x?a=1")
    expect(redactUrl("/x")).toBe("/x")
  })

  it("redactUrl matches names as the service decodes them: api%5Ftoken is api_token", () => {
    // URLSearchParams decodes a name's percent-encoding, so the encoded name authenticates (v1 securityLive).
    expect(redactUrl("/x?amount=1&api%5Ftoken=sk_test_abc")).toBe("/x?amount=1&api%5Ftoken=[REDACTED]")
    expect(redactUrl("/x?%61pi_token=sk_test_abc#f")).toBe("/x?%61pi_token=[REDACTED]#f")
    expect(redactUrl("/x?api%ZZtoken=1")).toBe("/x?api%ZZtoken=1")
  })
})
