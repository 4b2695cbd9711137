import { describe, expect, it } from "vitest"
import { holdsCardOrSecret, holdsSecret, redactBody, redactPans, redactUrl } from "./redact.ts"

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

  it("redactUrl hides a card number in the path, the query's names and values and the fragment, as decoded", () => {
    const pan = "4556360000001014"
    expect(redactUrl(`/public/v1/transactions/${pan}?cursor=${pan}&${pan}=1&a=2`)).toBe(
      "/public/v1/transactions/[REDACTED]?cursor=[REDACTED]&[REDACTED]=1&a=2"
    )
    // Encoded spaces, `+` in a query, dots, a number split over segments.
    expect(redactUrl("/x/4556%203600%200000%201014/y?q=4556+3600+0000+1014&r=4556.3600.0000.1014")).toBe(
      "/x/[REDACTED]/y?q=[REDACTED]&r=[REDACTED]"
    )
    expect(redactUrl("/x/4556/3600/0000/1014/y")).toBe("/x/[REDACTED]/y")
    // An absolute URL (a span's url.full) keeps its host and port; the fragment is read too.
    expect(redactUrl(`http://127.0.0.1:3000/a/${pan}?api_token=sk_test_x#${pan}`)).toBe(
      "http://127.0.0.1:3000/a/[REDACTED]?api_token=[REDACTED]#[REDACTED]"
    )
    // Ids, dates and short numbers stay readable.
    expect(redactUrl("/api/transactions/tx_01J8Z?created_from=2026-11-27&page=2")).toBe(
      "/api/transactions/tx_01J8Z?created_from=2026-11-27&page=2"
    )
  })
})

describe("redactPans (every text the gateway keeps or logs)", () => {
  const pan = "4556360000001014"
  it("finds a card number followed by its expiry or CVV, grouped by spaces, dots, NBSP, in any script", () => {
    const writings = [
      "4556 3600 0000 1014 12/30",
      `${pan} 987`,
      `${pan}/12/30`,
      "4556.3600.0000.1014",
      "4556\u00a03600\u00a00000\u00a01014",
      "4556  3600  0000  1014",
      "4556 - 3600 - 0000 - 1014",
      "4556_3600_0000_1014",
      "4556\u200b3600\u200b0000\u200b1014",
      "\uff14\uff15\uff15\uff16\uff13\uff16\uff10\uff10\uff10\uff10\uff10\uff10\uff11\uff10\uff11\uff14",
      "\u0664\u0665\u0665\u0666\u0663\u0666\u0660\u0660\u0660\u0660\u0660\u0660\u0661\u0660\u0661\u0664"
    ]
    for (const text of writings) expect(redactPans(`cartão ${text} ok`), text).toBe("cartão [REDACTED] ok")
    // Whatever the next digits, when a window of 13 to 19 passes Luhn: the run goes whole.
    expect(redactPans(`12 ${pan} 4`)).toBe("[REDACTED]")
  })
  it("keeps a UUID, a boleto line (bare or as printed), a CPF, a CNPJ as written, dates and short numbers", () => {
    // 47 and 48 digits without a separator: one in ten of their 16-digit windows passes Luhn; none is a card.
    const line = "23793381286000000000300000000401184340000010000"
    const convenio = "846700000017435900240209024050002435842210108119"
    const uuid = "12345678-1234-4234-8234-123456789012"
    // A 16-digit reference that fails Luhn as a whole is kept, though its first 13 and 14 digits pass: a card
    // number never starts or ends inside a group of digits.
    expect(redactPans("ref 1732740110124999")).toBe("ref 1732740110124999")
    const printed = [
      "23793.38128 60000.000003 00000.000401 1 84340000010000",
      "84670000001-7 43590024020-9 02405000243-5 84221010811-9"
    ]
    const kept = [line, convenio, uuid, ...printed, "529.982.247-25", "52998224725", "11.222.333/0001-81", "1234"]
    for (const text of kept) expect(redactPans(`x ${text} y`), text).toBe(`x ${text} y`)
    // A card number beside a boleto line is still found; the line is kept.
    expect(redactPans(`${line} ${pan}`)).toBe(`${line} [REDACTED]`)
  })
  it("redactBody redacts a card number used as a JSON key", () => {
    expect(JSON.parse(redactBody(JSON.stringify({ [pan]: 1, [`card ${pan} 12/30`]: "x", a: "ok" })))).toEqual({
      "[REDACTED]": 1,
      "card [REDACTED]": "x",
      a: "ok"
    })
  })
  it("holdsSecret tells a card number, an API key, a webhook secret or a card token from an id", () => {
    const secrets = [
      pan,
      "sk_live_AbC",
      "retry-sk_test_x",
      "whsec_abc",
      `card_${"a".repeat(43)}`,
      "4556-3600-0000-1014"
    ]
    for (const value of secrets) expect(holdsSecret(value), value).toBe(true)
    const ids = ["rid-1234", "0f8e2b8c-63c1-4a4e-9b2e-2f7a1f7e0e11", "order-2026-11-27", "task_sk_live"]
    for (const value of ids) expect(holdsSecret(value), value).toBe(false)
  })
  it("holdsCardOrSecret (an Idempotency-Key's refusal) takes only a card number of a brand the gateway takes", () => {
    const refused = [pan, "4556 3600 0000 1014", "pedido-4556360000001014-2", "sk_live_AbC", "whsec_x"]
    for (const value of refused) expect(holdsCardOrSecret(value), value).toBe(true)
    // 1732740110124 (a time in milliseconds) passes Luhn: holdsSecret, so redacted where logged, but no card.
    const accepted = ["1732740110124", "order-1732740110124-1", "12345678-1234-4234-8234-123456789012", "rid-1234"]
    for (const value of accepted) expect(holdsCardOrSecret(value), value).toBe(false)
    expect(holdsSecret("1732740110124")).toBe(true)
  })
  it("runs in linear time on a 1 MiB body of digits and separators, whatever their shape", () => {
    const MiB = 1024 * 1024
    const shapes = ["1 ", "4556 ", "12.", "1   ", "1 -/_.", "4556360000001014 ", "9".repeat(20) + " ", "\u0661 "]
    for (const shape of shapes) {
      const body = shape.repeat(Math.ceil(MiB / shape.length)).slice(0, MiB)
      const started = performance.now()
      redactBody(body)
      redactBody(JSON.stringify({ note: body }))
      // Linear: some 100 ms here; a quadratic scan of a 1 MiB run would take minutes.
      expect(performance.now() - started, JSON.stringify(shape)).toBeLessThan(3_000)
    }
  })
})
