import jsqrModule from "jsqr"
import { PNG } from "pngjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { barcodeFromDigitableLine, dueDateFactor, isValidBarcode, isValidDigitableLine } from "../src/domain/boleto.ts"
import { parseBrCode } from "../src/domain/brcode.ts"
import { addBusinessDaysInSaoPaulo } from "../src/domain/time.ts"
import { client, type Client, signup } from "./support/http.ts"
import {
  ADDRESS,
  badCheckDigit,
  boletoBody,
  CARDS,
  cardBody,
  CNPJ,
  createCustomer,
  createOrder,
  expectError,
  expectFieldErrors,
  newOrder,
  orderStatus,
  pixBody,
  PROCESS,
  REFUND,
  transactionStatus,
  UUID
} from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * POST /api/payment-gateway/process (interface-v2, CONTRACT §7): PIX with a real BR Code and its QR
 * image, BOLETO with FEBRABAN codes and a PDF, CARD against every sandbox test card, every
 * validation rule, and the order states that forbid a new charge.
 */

// jsqr's CJS bundle assigns the function itself to module.exports (see src/adapters/render/qr-png.test.ts).
const jsQR = jsqrModule as unknown as typeof jsqrModule.default

const PIX_EXPIRES = 120
const BOLETO_DUE_DAYS = 4

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({
    rateLimitPerMinute: 100_000,
    pixExpiresInSeconds: PIX_EXPIRES,
    boletoDueDays: BOLETO_DUE_DAYS
  })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const process_ = (body: unknown) => api.post(PROCESS, body, { key })

describe("PIX", () => {
  it("201 PENDING with a BR Code carrying the amount, a QR image of it and the configured expiry", async () => {
    const { amount, orderId } = await newOrder(api, key, 12_345)
    const before = Date.now()
    const reply = await process_(pixBody(orderId, amount))
    const after = Date.now()
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body).toEqual({
      transactionId: expect.stringMatching(UUID),
      status: "PENDING",
      method: "PIX",
      amount: 12_345,
      pix: { emv: expect.any(String), qrCodeUrl: expect.any(String), expiresAt: expect.any(String) }
    })
    const { emv, expiresAt, qrCodeUrl } = reply.body.pix

    const parsed = parseBrCode(emv)
    expect(parsed.ok, `${emv}: ${JSON.stringify(parsed)}`).toBe(true)
    if (!parsed.ok) return
    expect(parsed.code.amountCents).toBe(12_345)
    expect(parsed.code.fields.get("53")).toBe("986") // BRL
    expect(parsed.code.fields.get("58")).toBe("BR")

    // expiresAt = now + PIX_EXPIRES_IN_SECONDS (120 here, not the 3600 default).
    const expires = Date.parse(expiresAt)
    expect(expiresAt).toBe(new Date(expires).toISOString())
    expect(expires).toBeGreaterThanOrEqual(before + PIX_EXPIRES * 1000 - 1000)
    expect(expires).toBeLessThanOrEqual(after + PIX_EXPIRES * 1000 + 1000)

    // The QR image: absolute URL under PUBLIC_BASE_URL, no API key, decodes to exactly the emv.
    expect(qrCodeUrl.startsWith(`${server.config.publicBaseUrl}/`), qrCodeUrl).toBe(true)
    const image = await fetch(qrCodeUrl)
    expect(image.status).toBe(200)
    expect(image.headers.get("content-type")).toMatch(/^image\/png/)
    const png = PNG.sync.read(Buffer.from(await image.arrayBuffer()))
    const qr = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)
    expect(qr?.data).toBe(emv)

    // The transaction is readable and PENDING.
    expect(await transactionStatus(api, key, reply.body.transactionId)).toBe("PENDING")
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")
  })

  it("the QR URL cannot be guessed: another token is 404", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const reply = await process_(pixBody(orderId, amount))
    expect(reply.status, reply.text).toBe(201)
    const url = new URL(reply.body.pix.qrCodeUrl)
    const segments = url.pathname.split("/")
    const token = segments[segments.length - 2]!
    expect(token.length).toBeGreaterThanOrEqual(32)
    const swap = (t: string) => `${url.origin}${segments.slice(0, -2).join("/")}/${t}/${segments[segments.length - 1]}`
    expect((await fetch(swap(`${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`))).status).toBe(404)
    expect((await fetch(swap("not-a-token"))).status).toBe(404)
    expect((await fetch(swap(reply.body.transactionId))).status).toBe(404)
  })
})

describe("BOLETO", () => {
  it("201 PENDING with a valid barcode and digitable line, the due date in São Paulo, and a PDF", async () => {
    const { amount, orderId } = await newOrder(api, key, 25_990)
    const before = new Date()
    const reply = await process_(boletoBody(orderId, amount))
    const after = new Date()
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body).toEqual({
      transactionId: expect.stringMatching(UUID),
      status: "PENDING",
      method: "BOLETO",
      amount: 25_990,
      boleto: {
        barcode: expect.any(String),
        digitableLine: expect.any(String),
        pdfUrl: expect.any(String),
        dueDate: expect.any(String)
      }
    })
    const { barcode, digitableLine, dueDate, pdfUrl } = reply.body.boleto
    expect(barcode).toMatch(/^\d{44}$/)
    expect(isValidBarcode(barcode)).toBe(true)
    expect(digitableLine).toMatch(/^\d{47}$/)
    expect(isValidDigitableLine(digitableLine)).toBe(true)
    expect(barcodeFromDigitableLine(digitableLine)).toBe(barcode)
    // FEBRABAN layout: positions 6–9 the due-date factor, 10–19 the amount in centavos.
    expect(barcode.slice(9, 19)).toBe("0000025990")
    // BOLETO_DUE_DAYS business days (docs/calendar.md).
    const expected = [
      addBusinessDaysInSaoPaulo(before, BOLETO_DUE_DAYS).date,
      addBusinessDaysInSaoPaulo(after, BOLETO_DUE_DAYS).date
    ]
    expect(expected).toContain(dueDate)
    expect(Number(barcode.slice(5, 9))).toBe(dueDateFactor(dueDate))

    expect(pdfUrl.startsWith(`${server.config.publicBaseUrl}/`), pdfUrl).toBe(true)
    const pdf = await fetch(pdfUrl)
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get("content-type")).toMatch(/^application\/pdf/)
    const bytes = Buffer.from(await pdf.arrayBuffer())
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("%PDF")

    const wrong = pdfUrl.replace(/\/boleto\/[^/]+\//, "/boleto/not-the-token/")
    expect(wrong).not.toBe(pdfUrl)
    expect((await fetch(wrong)).status).toBe(404)
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")
  })
})

describe("CARD approved", () => {
  const approved = [
    [CARDS.visa, "Visa"],
    [CARDS.visa2, "Visa"],
    [CARDS.mastercard, "Mastercard"],
    [CARDS.elo, "Elo"]
  ] as const

  it.each(approved)("%s (%s): 201 CAPTURED, order PAID, a second charge of the order 409", async (pan, brand) => {
    const { amount, orderId } = await newOrder(api, key, 30_000)
    const reply = await process_(cardBody(orderId, amount, pan, { installments: 3 }))
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body).toEqual({
      transactionId: expect.stringMatching(UUID),
      status: "CAPTURED",
      method: "CARD",
      amount: 30_000,
      installments: 3,
      card: { brand, last4: pan.slice(-4) }
    })
    expect(reply.text).not.toContain(pan)
    expect(await transactionStatus(api, key, reply.body.transactionId)).toBe("CAPTURED")
    expect(await orderStatus(api, key, orderId)).toBe("PAID")

    expectError(await process_(cardBody(orderId, amount, CARDS.visa)), 409)
    expectError(await process_(pixBody(orderId, amount)), 409)
    const count = await server.db.query("select count(*)::int as n from transactions where order_id = $1", [orderId])
    expect(count.rows[0].n).toBe(1)
  })

  it("buyerDoc is optional for CARD", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const body = cardBody(orderId, amount, CARDS.visa2)
    delete body.buyerDoc
    const reply = await process_(body)
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.status).toBe("CAPTURED")
  })

  it("installments default to 1 when omitted", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const body = cardBody(orderId, amount)
    delete body.installments
    const reply = await process_(body)
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.installments).toBe(1)
  })
})

describe("CARD refused", () => {
  const refusals = [
    [CARDS.declined, "card_declined", "DECLINED"],
    [CARDS.insufficientFunds, "insufficient_funds", "DECLINED"],
    [CARDS.expired, "expired_card", "DECLINED"],
    [CARDS.incorrectCvc, "incorrect_cvc", "DECLINED"],
    [CARDS.fraud, "fraud_suspected", "DECLINED"],
    [CARDS.processingError, "processing_error", "FAILED"]
  ] as const

  it.each(refusals)("%s: 422 %s, a %s transaction recorded, the order still payable", async (pan, code, status) => {
    const { amount, orderId } = await newOrder(api, key, 4_990)
    const reply = await process_(cardBody(orderId, amount, pan))
    const body = expectError(reply, 422, code)
    expect(body.transactionId).toMatch(UUID)
    expect(reply.text).not.toContain(pan)

    const t = await api.get(`/api/transactions/${body.transactionId}`, { key })
    expect(t.status, t.text).toBe(200)
    expect(t.body).toMatchObject({ id: body.transactionId, orderId, method: "CARD", amount: 4_990, status })
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")

    const retry = await process_(cardBody(orderId, amount, CARDS.mastercard))
    expect(retry.status, retry.text).toBe(201)
    expect(retry.body.status).toBe("CAPTURED")
    expect(retry.body.transactionId).not.toBe(body.transactionId)
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
  })
})

describe("validation: 400 naming the field, every broken field listed", () => {
  let orderId: string
  const amount = 10_000
  beforeAll(async () => {
    orderId = (await newOrder(api, key, amount)).orderId
  })

  const without = (body: Record<string, unknown>, field: string) => {
    const copy = { ...body }
    delete copy[field]
    return copy
  }

  it("PIX or BOLETO without buyerDoc: message exactly 'buyerDoc is required'", async () => {
    for (const body of [pixBody(orderId, amount), boletoBody(orderId, amount)]) {
      const error = expectFieldErrors(await process_(without(body, "buyerDoc")), ["buyerDoc"])
      expect(error.message).toBe("buyerDoc is required")
    }
  })

  it("CPF or CNPJ with wrong check digits, or of the wrong length", async () => {
    for (const buyerDoc of [
      badCheckDigit("52998224725"),
      badCheckDigit(CNPJ),
      "5299822472",
      "529982247250",
      "529.982.247-25"
    ]) {
      expectFieldErrors(await process_(pixBody(orderId, amount, { buyerDoc })), ["buyerDoc"])
    }
    // The good ones pass validation (a CNPJ buyer, on its own order).
    const other = await newOrder(api, key, 500)
    expect((await process_(pixBody(other.orderId, 500, { buyerDoc: CNPJ }))).status).toBe(201)
  })

  it("CEP not 8 digits, state not a UF", async () => {
    for (const postal_code of ["0131010", "013101000", "01310-100", "abcdefgh"]) {
      expectFieldErrors(await process_(pixBody(orderId, amount, { buyerAddress: { ...ADDRESS, postal_code } })), [
        "buyerAddress.postal_code"
      ])
    }
    for (const state of ["XX", "sp", "São Paulo"]) {
      expectFieldErrors(await process_(pixBody(orderId, amount, { buyerAddress: { ...ADDRESS, state } })), [
        "buyerAddress.state"
      ])
    }
    const { city: _, ...noCity } = ADDRESS
    expectFieldErrors(await process_(pixBody(orderId, amount, { buyerAddress: noCity })), ["buyerAddress.city"])
  })

  it("buyerCellNumber a landline or garbage", async () => {
    for (const buyerCellNumber of ["(11) 3456-7890", "1134567890", "garbage", "(00) 91234-5678", ""]) {
      expectFieldErrors(await process_(pixBody(orderId, amount, { buyerCellNumber })), ["buyerCellNumber"])
    }
  })

  it("buyerBirthdate missing for a raw card, malformed, or in the future", async () => {
    expectFieldErrors(await process_(without(cardBody(orderId, amount), "buyerBirthdate")), ["buyerBirthdate"])
    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)
    for (const buyerBirthdate of ["17/05/1990", "1990-02-30", "1990-5-17", tomorrow, "2999-01-01"]) {
      expectFieldErrors(await process_(cardBody(orderId, amount, CARDS.visa, { buyerBirthdate })), ["buyerBirthdate"])
    }
  })

  it("installments 0, 13 or fractional", async () => {
    for (const installments of [0, 13, -1, 1.5]) {
      expectFieldErrors(await process_(cardBody(orderId, amount, CARDS.visa, { installments })), ["installments"])
    }
  })

  it("card number failing Luhn or not 16 digits, brand not matching the BIN, past expiry, short CVV", async () => {
    expectFieldErrors(await process_(cardBody(orderId, amount, CARDS.visa, { cardNumber: "4242424242424241" })), [
      "cardNumber"
    ])
    expectFieldErrors(await process_(cardBody(orderId, amount, CARDS.visa, { cardNumber: "424242424242424" })), [
      "cardNumber"
    ])
    expectFieldErrors(await process_(cardBody(orderId, amount, CARDS.visa, { cardBrand: "Mastercard" })), ["cardBrand"])
    expectFieldErrors(await process_(cardBody(orderId, amount, CARDS.mastercard, { cardBrand: "Visa" })), ["cardBrand"])
    const expired = expectError(
      await process_(cardBody(orderId, amount, CARDS.visa, { cardExpirationMonth: "01", cardExpirationYear: "20" })),
      400
    )
    expect(expired.errors?.length).toBe(1)
    expect(expired.errors?.[0]?.field).toMatch(/^cardExpiration(Month|Year)$/)
    expect(expired.message).toMatch(/cardExpiration(Month|Year)/)
    expectFieldErrors(await process_(cardBody(orderId, amount, CARDS.visa, { cardExpirationMonth: "13" })), [
      "cardExpirationMonth"
    ])
    expectFieldErrors(await process_(cardBody(orderId, amount, CARDS.visa, { cardSecurityCode: "12" })), [
      "cardSecurityCode"
    ])
    expectFieldErrors(await process_(cardBody(orderId, amount, CARDS.visa, { cardBrand: "Amex" })), ["cardBrand"])
    expectFieldErrors(await process_(without(cardBody(orderId, amount), "cardNumber")), ["cardNumber"])
  })

  it("lists every broken field of a card at once", async () => {
    const reply = await process_(
      without(
        cardBody(orderId, amount, CARDS.visa, {
          installments: 13,
          cardNumber: "4242424242424241",
          cardSecurityCode: "12"
        }),
        "buyerBirthdate"
      )
    )
    expectFieldErrors(reply, ["installments", "buyerBirthdate", "cardNumber", "cardSecurityCode"])
  })

  it("lists every broken field of the common fields at once", async () => {
    const reply = await process_(
      pixBody(orderId, amount, {
        buyerDoc: "12345678900",
        buyerCellNumber: "garbage",
        buyerAddress: { ...ADDRESS, postal_code: "123", state: "XX" }
      })
    )
    expectFieldErrors(reply, ["buyerDoc", "buyerCellNumber", "buyerAddress.postal_code", "buyerAddress.state"])
  })

  it("lists field errors of the body's shape together with the card rules", async () => {
    // A bad CEP (a shape rule) and a short CVV (a card rule) in one body: both are reported.
    const reply = await process_(
      cardBody(orderId, amount, CARDS.visa, {
        cardSecurityCode: "12",
        buyerAddress: { ...ADDRESS, postal_code: "123" }
      })
    )
    expectFieldErrors(reply, ["buyerAddress.postal_code", "cardSecurityCode"])
  })

  it("each broken field is reported once, in words a merchant can act on", async () => {
    // Schema internals (one entry per union member, "Expected undefined" for optional fields) are noise.
    const replies = [
      await process_(pixBody(orderId, amount, { method: "BITCOIN" })),
      await process_(pixBody(orderId, amount, { buyerDoc: badCheckDigit("52998224725") })),
      await process_(cardBody(orderId, amount, CARDS.visa, { buyerBirthdate: "17/05/1990" })),
      await process_(cardBody(orderId, amount, CARDS.visa, { cardBrand: "Amex" }))
    ]
    for (const reply of replies) {
      const body = expectError(reply, 400)
      expect(body.errors?.length, reply.text).toBe(1)
      expect(reply.text).not.toMatch(/Expected undefined/)
    }
  })

  it("amount different from the order's: 400 naming amount", async () => {
    for (const bad of [amount - 1, amount + 1]) {
      for (const body of [pixBody(orderId, bad), cardBody(orderId, bad)]) {
        expectFieldErrors(await process_(body), ["amount"])
      }
    }
    expectFieldErrors(await process_(pixBody(orderId, 0)), ["amount"])
    expectFieldErrors(await process_(pixBody(orderId, 100.5)), ["amount"])
    expectFieldErrors(await process_(pixBody(orderId, amount, { amount: "10000" })), ["amount"])
    expect(await orderStatus(api, key, orderId)).toBe("PENDING")
  })

  it("unknown method, missing orderId, malformed orderId", async () => {
    expectFieldErrors(await process_(pixBody(orderId, amount, { method: "BITCOIN" })), ["method"])
    expectFieldErrors(await process_(pixBody(orderId, amount, { method: "pix" })), ["method"])
    expectFieldErrors(await process_(without(pixBody(orderId, amount), "method")), ["method"])
    expectFieldErrors(await process_(without(pixBody(orderId, amount), "orderId")), ["orderId"])
    expectFieldErrors(await process_(pixBody("not-a-uuid", amount)), ["orderId"])
  })

  it("none of the failed requests recorded a transaction", async () => {
    const count = await server.db.query("select count(*)::int as n from transactions where order_id = $1", [orderId])
    expect(count.rows[0].n).toBe(0)
  })
})

describe("the order", () => {
  it("unknown, or of another account: 404 'orderId not found'", async () => {
    const unknown = expectError(await process_(pixBody("00000000-0000-4000-8000-000000000000", 1000)), 404)
    expect(unknown.message).toBe("orderId not found")

    const other = await signup(api, "Outra Loja")
    const theirs = await newOrder(api, other.key, 1000)
    for (const body of [
      pixBody(theirs.orderId, 1000),
      cardBody(theirs.orderId, 1000),
      boletoBody(theirs.orderId, 1000)
    ]) {
      const error = expectError(await process_(body), 404)
      expect(error.message).toBe("orderId not found")
    }
    expect(await orderStatus(api, other.key, theirs.orderId)).toBe("PENDING")
  })

  it(
    "concurrent card charges of one order (no Idempotency-Key, a double " + "click): one capture, the others 409",
    async () => {
      const { amount, orderId } = await newOrder(api, key)
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          process_(cardBody(orderId, amount, i % 2 === 0 ? CARDS.visa : CARDS.mastercard))
        )
      )
      const captured = await server.db.query(
        "select id from transactions where order_id = $1 and status = 'CAPTURED'",
        [orderId]
      )
      expect(replies.filter((r) => r.status === 201).length, replies.map((r) => r.status).join(",")).toBe(1)
      for (const r of replies.filter((r) => r.status !== 201)) expectError(r, 409)
      expect(captured.rows.length, "the buyer is charged once").toBe(1)
      expect(await orderStatus(api, key, orderId)).toBe("PAID")
    }
  )

  it("an order whose customer was deleted cannot be paid (interface-v2 Customers rule 2)", async () => {
    // "After DELETE the customer id is invalid for new orders and payments": the exact status is not
    // specified; 404 (as for an order of a deleted customer) or 409 (the order cannot be paid) are both sound.
    const { amount, customerId, orderId } = await newOrder(api, key)
    expect((await api.del(`/api/customers/${customerId}`, { key })).status).toBe(204)
    for (const body of [pixBody(orderId, amount), boletoBody(orderId, amount), cardBody(orderId, amount)]) {
      const reply = await process_(body)
      expect([404, 409], reply.text).toContain(reply.status)
      expectError(reply, reply.status)
    }
    const count = await server.db.query("select count(*)::int as n from transactions where order_id = $1", [orderId])
    expect(count.rows[0].n).toBe(0)
  })

  it("PAID: 409 for every method", async () => {
    const { amount, orderId } = await newOrder(api, key)
    expect((await process_(cardBody(orderId, amount))).status).toBe(201)
    for (const body of [pixBody(orderId, amount), boletoBody(orderId, amount), cardBody(orderId, amount, CARDS.elo)]) {
      expectError(await process_(body), 409)
    }
  })

  it("EXPIRED (its PIX expired): 409", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const pix = await process_(pixBody(orderId, amount))
    expect(pix.status, pix.text).toBe(201)
    const expired = await api.post(`/api/sandbox/transactions/${pix.body.transactionId}/expire`, undefined, { key })
    expect(expired.status, expired.text).toBe(200)
    expect(await orderStatus(api, key, orderId)).toBe("EXPIRED")
    for (const body of [pixBody(orderId, amount), cardBody(orderId, amount)]) expectError(await process_(body), 409)
  })

  it("CANCELLED (its card charge fully refunded): 409", async () => {
    const { amount, orderId } = await newOrder(api, key)
    const card = await process_(cardBody(orderId, amount))
    expect(card.status, card.text).toBe(201)
    const refund = await api.post(REFUND, { transactionId: card.body.transactionId }, { key })
    expect(refund.status, refund.text).toBe(200)
    expect(await orderStatus(api, key, orderId)).toBe("CANCELLED")
    for (const body of [pixBody(orderId, amount), cardBody(orderId, amount)]) expectError(await process_(body), 409)
  })

  it("PAID by its PIX: 409", async () => {
    const customer = await createCustomer(api, key)
    const orderId = await createOrder(api, key, customer.id, 777)
    const pix = await process_(pixBody(orderId, 777))
    expect(pix.status, pix.text).toBe(201)
    const paid = await api.post(`/api/sandbox/transactions/${pix.body.transactionId}/pay`, undefined, { key })
    expect(paid.status, paid.text).toBe(200)
    expect(await orderStatus(api, key, orderId)).toBe("PAID")
    for (const body of [pixBody(orderId, 777), cardBody(orderId, 777)]) expectError(await process_(body), 409)
  })
})
