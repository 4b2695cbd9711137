import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addCalendarDays, isBusinessDay, onOrNextBusinessDay } from "../src/domain/calendar.ts"
import { client, type Client, signup } from "./support/http.ts"
import { billetCustomer, payBilletAndWait, termsBillet } from "./support/billets.ts"
import { boletoBody, expectFieldErrors, freshCpf, newOrder, pixBody, PROCESS } from "./support/payments.ts"
import { pdfTextRuns } from "./support/pdfText.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Boleto charge terms through both interfaces (issue 21 item 2; docs/boleto.md): accepted as sent,
 * refused naming the field, and the amount due on a date computed in the test from the rules — fine
 * 2 %, interest 1 % a month pro rata die, two fixed discounts, each part rounded half up.
 */

let server: TestServer
let api: Client
let key: string
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  key = (await signup(api)).key
})
afterAll(async () => {
  await server?.close()
})

const today = () => new Date().toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" })
const halfUp = (n: number, d: number) => Math.floor((2 * n + d) / (2 * d))
/** What the rules say, written again here: late after the next business day; interest from the due date. */
const expected = (amount: number, due: string, discounts: Array<[number, string]>, paidOn: string) => {
  const late = paidOn > onOrNextBusinessDay(due)
  if (late) {
    const days = Math.round((Date.parse(paidOn) - Date.parse(due)) / 86_400_000)
    return amount + halfUp(amount * 2, 100) + halfUp(amount * days, 100 * 30)
  }
  const discount = discounts.find(([, until]) => paidOn <= until)
  return amount - (discount?.[0] ?? 0)
}

describe("v2: POST /api/payment-gateway/process with boleto terms", () => {
  it("accepts them and answers the amount due on any date, to the centavo", async () => {
    const amount = 123_457
    const order = await newOrder(api, key, amount)
    // The due date is BOLETO_DUE_DAYS business days away: the discounts are dated today and tomorrow.
    const d1 = today()
    const d2 = addCalendarDays(d1, 1)
    const reply = await api.post(
      PROCESS,
      boletoBody(order.orderId, amount, {
        boleto: {
          fine: { type: "PERCENTAGE", value: 2 },
          interest: { type: "PERCENTAGE_PER_MONTH", value: 1 },
          discounts: [
            { type: "FIXED", value: 5_000, until: d1 },
            { type: "FIXED", value: 2_500, until: d2 }
          ]
        }
      }),
      { key }
    )
    expect(reply.status, reply.text).toBe(201)
    const id = reply.body.transactionId as string
    const due = reply.body.boleto.dueDate as string
    const dates = [d1, d2, due, onOrNextBusinessDay(addCalendarDays(due, 1)), addCalendarDays(due, 1)]
    for (let n = 2; n <= 45; n += 7) dates.push(addCalendarDays(due, n))
    for (const date of dates) {
      const answer = await api.get(`/api/transactions/${id}/amount-due?date=${date}`, { key })
      expect(answer.status, answer.text).toBe(200)
      const want = expected(
        amount,
        due,
        [
          [5_000, d1],
          [2_500, d2]
        ],
        date
      )
      expect(answer.body.amountDue, `${date}: ${answer.text}`).toBe(want)
      const b = answer.body
      expect(b.principal - b.abatement - b.discount + b.fine + b.interest).toBe(b.amountDue)
      expect(b.dueDate).toBe(due)
    }
    // Default date: today, the first discount.
    const now = await api.get(`/api/transactions/${id}/amount-due`, { key })
    expect(now.body).toMatchObject({ date: d1, discount: 5_000, amountDue: amount - 5_000 })
  })

  it("400 naming each field a bank would refuse", async () => {
    const order = await newOrder(api, key, 10_000)
    const cases: Array<[unknown, string[]]> = [
      [{ fine: { type: "PERCENTAGE", value: 0 } }, ["boleto.fine.value"]],
      [{ fine: { type: "PERCENTAGE", value: 2.005 } }, ["boleto.fine.value"]],
      [{ fine: { type: "PERCENTAGE", value: 101 } }, ["boleto.fine.value"]],
      [{ fine: { type: "FIXED", value: 10.5 } }, ["boleto.fine.value"]],
      [{ fine: { type: "FIXED", value: 10_000 } }, ["boleto.fine.value"]],
      [{ fine: { type: "percentage", value: 2 } }, ["boleto.fine.type"]],
      [{ interest: { type: "PERCENTAGE_PER_YEAR", value: 1 } }, ["boleto.interest.type"]],
      [{ interest: { type: "FIXED_PER_DAY", value: -3 } }, ["boleto.interest.value"]],
      [{ abatement: { type: "FIXED", value: 20_000 } }, ["boleto.abatement.value"]],
      [{ discounts: [{ type: "FIXED", value: 100, until: "2026-02-30" }] }, ["boleto.discounts[0].until"]],
      [{ discounts: [{ type: "FIXED", value: 100, until: "2099-01-01" }] }, ["boleto.discounts[0].until"]],
      [
        {
          discounts: [
            { type: "FIXED", value: 100, until: today() },
            { type: "PERCENTAGE", value: 1, until: addCalendarDays(today(), 1) }
          ]
        },
        ["boleto.discounts[1].type"]
      ],
      [
        {
          discounts: [
            { type: "FIXED", value: 100, until: today() },
            { type: "FIXED", value: 200, until: addCalendarDays(today(), 1) }
          ]
        },
        ["boleto.discounts[1].value"]
      ],
      [
        {
          discounts: [1, 2, 3, 4].map((i) => ({ type: "FIXED", value: 100 - i, until: addCalendarDays(today(), i) }))
        },
        ["boleto.discounts"]
      ],
      [{ fine: { type: "FIXED" } }, ["boleto.fine.value"]],
      [{ penalty: 1 }, ["boleto.penalty"]]
    ]
    for (const [terms, fields] of cases) {
      const reply = await api.post(PROCESS, boletoBody(order.orderId, 10_000, { boleto: terms }), { key })
      expectFieldErrors(reply, fields)
    }
    const pix = await api.post(PROCESS, pixBody(order.orderId, 10_000, { boleto: {} }), { key })
    expectFieldErrors(pix, ["boleto"])
  })

  it("the amount due of a PIX is 409 not_a_boleto; a bad date is 400 naming date", async () => {
    const order = await newOrder(api, key, 10_000)
    const pix = await api.post(PROCESS, pixBody(order.orderId, 10_000), { key })
    expect(pix.status, pix.text).toBe(201)
    const answer = await api.get(`/api/transactions/${pix.body.transactionId}/amount-due`, { key })
    expect(answer.status, answer.text).toBe(409)
    expect(answer.body.code).toBe("not_a_boleto")
    const order2 = await newOrder(api, key, 10_000)
    const boleto = await api.post(PROCESS, boletoBody(order2.orderId, 10_000), { key })
    const bad = await api.get(`/api/transactions/${boleto.body.transactionId}/amount-due?date=2026-13-01`, { key })
    expectFieldErrors(bad, ["date"])
  })
})

describe("v1: POST /public/v1/transactions with billet terms", () => {
  const customer = billetCustomer

  it("accepts them (snake_case, lower case) and answers amount_due, due on a closed day too", async () => {
    const amount = 100_000
    const t = today()
    const ahead = Array.from({ length: 50 }, (_, i) => addCalendarDays(t, i + 3))
    const closed = ahead.find((d) => !isBusinessDay(d))!
    const d1 = addCalendarDays(t, 1)
    const d2 = addCalendarDays(t, 2)
    const created = await api.post(
      "/public/v1/transactions",
      {
        method: "billet",
        amount,
        expires_at: `${closed}T12:00:00-03:00`,
        customer,
        billet: {
          fine: { type: "percentage", value: 2 },
          interest: { type: "percentage_per_month", value: 1 },
          discounts: [
            { type: "fixed", value: 5_000, until: d1 },
            { type: "fixed", value: 2_500, until: d2 }
          ]
        }
      },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const hash = created.body.data.hash as string
    // With a fine or interest it stays payable BOLETO_LATE_DAYS (30) after the next business day.
    expect(created.body.data.expires_at).toBe(`${addCalendarDays(onOrNextBusinessDay(closed), 30)}T23:59:59-03:00`)
    const dates = [t, d1, d2, closed, onOrNextBusinessDay(closed), addCalendarDays(onOrNextBusinessDay(closed), 1)]
    for (let n = 5; n <= 30; n += 5) dates.push(addCalendarDays(closed, n))
    for (const date of dates) {
      const answer = await api.get(`/public/v1/transactions/${hash}/amount_due?date=${date}`, { token: key })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body.data.amount_due, `${date}: ${answer.text}`).toBe(
        expected(
          amount,
          closed,
          [
            [5_000, d1],
            [2_500, d2]
          ],
          date
        )
      )
      expect(answer.body.data.due_date).toBe(closed)
    }
  })

  it("the PDF prints the terms as instruction lines; the checkout page shows them and today's amount", async () => {
    const t = today()
    const created = await api.post(
      "/public/v1/transactions",
      {
        method: "billet",
        amount: 100_000,
        customer,
        billet: {
          fine: { type: "percentage", value: 2 },
          interest: { type: "percentage_per_month", value: 1 },
          discounts: [{ type: "fixed", value: 5_000, until: t }]
        }
      },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const data = created.body.data
    const br = (d: string) => d.split("-").reverse().join("/")
    const due = data.billet.due_date as string
    const lines = [
      `Até ${br(t)}, conceder desconto de R$ 50,00.`,
      `Após ${br(due)}, cobrar multa de 2,00% (R$ 20,00).`,
      `Após ${br(due)}, cobrar juros de mora de 1,00% ao mês, pro rata die (R$ 0,33 por dia de atraso).`,
      // 30 days after the due date, moved to the next business day when closed (API Pix validadeAposVencimento).
      `Não receber após ${br(onOrNextBusinessDay(addCalendarDays(onOrNextBusinessDay(due), 30)))}.`
    ]
    const pdf = await fetch(data.billet.pdf_url)
    const runs = pdfTextRuns(Buffer.from(await pdf.arrayBuffer()))
    for (const line of lines) expect(runs, line).toContain(line)
    const page = await (await fetch(data.checkout_url)).text()
    expect(page).toContain('<strong id="billet-today">R$\u00a0950,00</strong>')
    for (const line of lines) expect(page).toContain(line)
  })

  it("400 naming billet.<field>; terms on another method are refused", async () => {
    const body = (billet: unknown, method = "billet") => ({ method, amount: 10_000, customer, billet })
    const cases: Array<[unknown, string[]]> = [
      [{ fine: { type: "percentage", value: -2 } }, ["billet.fine.value"]],
      [{ fine: { type: "PERCENTAGE", value: 2 } }, ["billet.fine.type"]],
      [{ interest: { type: "percentage_per_month", value: 0.001 } }, ["billet.interest.value"]],
      [{ discounts: [{ type: "fixed", value: 10_000, until: today() }] }, ["billet.discounts[0].value"]],
      [
        { abatement: { type: "fixed", value: 6_000 }, discounts: [{ type: "fixed", value: 4_000, until: today() }] },
        ["billet.discounts"]
      ]
    ]
    for (const [terms, fields] of cases) {
      const reply = await api.post("/public/v1/transactions", body(terms), { token: key })
      expect(reply.status, reply.text).toBe(400)
      const listed = (reply.body.errors as Array<{ field: string }>).map((e) => e.field)
      expect([...new Set(listed)].sort(), reply.text).toEqual(fields)
    }
    const pix = await api.post("/public/v1/transactions", body({}, "pix"), { token: key })
    expect(pix.status, pix.text).toBe(400)
    expect(pix.body.errors.map((e: { field: string }) => e.field)).toContain("billet")
    // A discount dated after the default due date (known at charge time) names its field too.
    const late = await api.post(
      "/public/v1/transactions",
      body({ discounts: [{ type: "fixed", value: 100, until: addCalendarDays(today(), 40) }] }),
      { token: key }
    )
    expect(late.status, late.text).toBe(400)
    expect(late.body.errors.map((e: { field: string }) => e.field)).toEqual(["billet.discounts[0].until"])
  })
})

describe("fuzz: any terms are 201 or a 400 naming billet.<field>, never a 500", () => {
  it("v1, 120 random term sets", async () => {
    const value = fc.oneof(
      fc.integer({ min: -5, max: 20_000 }),
      fc.double({ min: -1, max: 200, noNaN: true }),
      fc.constantFrom(0, 0.01, 2.5, 1e308, -0)
    )
    const date = fc.oneof(
      fc.integer({ min: -3, max: 70 }).map((n) => addCalendarDays(today(), n)),
      fc.constantFrom("2026-02-30", "x", "", "2026-1-1")
    )
    const fp = fc.record({ type: fc.constantFrom("fixed", "percentage", "FIXED", "per_day"), value })
    const terms = fc.record(
      {
        fine: fp,
        interest: fc.record({
          type: fc.constantFrom("fixed_per_day", "percentage_per_day", "percentage_per_month", "yearly"),
          value
        }),
        discounts: fc.array(fc.record({ type: fc.constantFrom("fixed", "percentage"), value, until: date }), {
          maxLength: 4
        }),
        abatement: fp
      },
      { requiredKeys: [] }
    )
    await fc.assert(
      fc.asyncProperty(terms, async (billet) => {
        const reply = await api.post(
          "/public/v1/transactions",
          {
            method: "billet",
            amount: 10_000,
            customer: { name: "Ana", email: "a@example.com", document: "11.222.333/0001-81" },
            billet
          },
          { token: key }
        )
        if (reply.status === 201) return
        expect(reply.status, reply.text).toBe(400)
        for (const e of reply.body.errors as Array<{ field: string }>)
          expect(e.field, reply.text).toMatch(/^billet(\.|$)/)
      }),
      { numRuns: 120 }
    )
  })
})

/** A transaction's postings of today on the merchant's pending balance, as v1 financials lists them. */
const postingsOf = async (hash: string) => {
  const t = today()
  const reply = await api.get(`/public/v1/financials?start_at=${t}&end_at=${t}&per_page=100`, { token: key })
  expect(reply.status, reply.text).toBe(200)
  return (reply.body.data as Array<{ transaction_hash: string; type: string; balance: string; amount: number }>)
    .filter((p) => p.transaction_hash === hash && p.balance === "pending" && p.type !== "settlement")
    .map((p) => [p.type, p.amount])
}

describe("a boleto paid late or early: the payment's parts, recorded and posted", () => {
  const BILLET_FEE = 349

  const billet = (due: string, discountUntil: string) => termsBillet(api, key, due, discountUntil)
  const payAndWait = (hash: string, query: string) => payBilletAndWait(api, key, hash, query)

  it("paid 10 days late: fine 2 % and 10 days of interest, posted as the merchant's revenue", async () => {
    const due = addCalendarDays(today(), 7)
    const hash = await billet(due, today())
    const paidOn = addCalendarDays(due, 10)
    const data = await payAndWait(hash, `date=${paidOn}`)
    // 100,000 × 2 % = 2,000; interest from the due date: 100,000 × 1 % × 10 / 30 = 333.33 → 333.
    expect(data.billet.payment).toEqual({
      paid_on: paidOn,
      amount_paid: 102_333,
      principal: 100_000,
      fine: 2_000,
      interest: 333,
      discount: 0,
      abatement: 0
    })
    expect(await postingsOf(hash)).toEqual([
      ["sale", 100_000],
      ["fee", -BILLET_FEE],
      ["fine", 2_000],
      ["interest", 333]
    ])
  })

  it("paid early: the discount comes off; a bank's different amount stands, the difference in its parts", async () => {
    const due = addCalendarDays(today(), 7)
    const early = await billet(due, addCalendarDays(today(), 1))
    const data = await payAndWait(early, `date=${today()}`)
    expect(data.billet.payment).toMatchObject({ amount_paid: 95_000, discount: 5_000, fine: 0, interest: 0 })
    expect(await postingsOf(early)).toEqual([
      ["sale", 100_000],
      ["fee", -BILLET_FEE],
      ["discount", -5_000]
    ])
    // A cashier collected 3 centavos more than the terms ask, 12 days late: the bank's amount stands.
    const other = await billet(due, today())
    const paidOn = addCalendarDays(due, 12)
    const late = await payAndWait(other, `date=${paidOn}&amount=102403`)
    // Our terms: 2,000 + 400 (100,000 × 1 % × 12 / 30) = 102,400; the 3 more are interest.
    expect(late.billet.payment).toMatchObject({ amount_paid: 102_403, fine: 2_000, interest: 403, discount: 0 })
  })
})

describe('a boleto paid less than its fee and splits (docs/ledger.md "A payment below its fee and splits")', () => {
  const BILLET_FEE = 349
  const BANK = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }

  const billet = async (amount: number, extra: Record<string, unknown>) => {
    const created = await api.post(
      "/public/v1/transactions",
      {
        method: "billet",
        amount,
        expires_at: `${addCalendarDays(today(), 7)}T12:00:00-03:00`,
        customer: billetCustomer,
        ...extra
      },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    return created.body.data.hash as string
  }
  const subaccount = async () => {
    const reply = await api.post(
      "/public/v1/subaccounts",
      { name: "Parceira", document: freshCpf(), email: "p@example.com", phone: "11912345678", bank_account: BANK },
      { token: key }
    )
    expect(reply.status, reply.text).toBe(201)
    return reply.body.data.id as string
  }
  const pendingOf = async (query = "") => {
    const reply = await api.get(`/public/v1/balance${query}`, { token: key })
    expect(reply.status, reply.text).toBe(200)
    return reply.body.data.pending as number
  }

  it("a discount larger than the amount less the fee: the fee is what was paid, the merchant keeps 0", async () => {
    // R$ 10,00 with R$ 7,00 off until the due date: the buyer pays 300, less than the fixed fee of 349.
    const hash = await billet(1_000, {
      billet: { discounts: [{ type: "fixed", value: 700, until: addCalendarDays(today(), 7) }] }
    })
    const before = await pendingOf()
    const data = await payBilletAndWait(api, key, hash, `date=${today()}`)
    expect(data.billet.payment).toMatchObject({ amount_paid: 300, discount: 700 })
    expect(await postingsOf(hash)).toEqual([
      ["sale", 1_000],
      ["fee", -300],
      ["discount", -700]
    ])
    expect(await pendingOf()).toBe(before)
  })

  it("a bank's short payment on a split to the full net: the fee comes down, then the splits", async () => {
    const sub = await subaccount()
    const share = 10_000 - BILLET_FEE // the most a split may take (CONTRACT-v1 §8)
    // 1 centavo short: the fee absorbs it (348), the recipient keeps its whole share.
    const short = await billet(10_000, { split: [{ subaccount_id: sub, amount: share }] })
    const before = await pendingOf()
    await payBilletAndWait(api, key, short, `date=${today()}&amount=9999`)
    expect(await postingsOf(short)).toEqual([
      ["sale", 10_000],
      ["fee", -(9_999 - share)],
      ["discount", -1],
      ["split", -share]
    ])
    expect(await pendingOf()).toBe(before)
    expect(await pendingOf(`?subaccount_id=${sub}`)).toBe(share)

    // Half paid: no fee (no posting: the journal has none of zero), and the recipient's share is what
    // was paid (its one share, pro rata: all of it).
    const half = await billet(10_000, { split: [{ subaccount_id: sub, amount: share }] })
    await payBilletAndWait(api, key, half, `date=${today()}&amount=5000`)
    expect(await postingsOf(half)).toEqual([
      ["sale", 10_000],
      ["discount", -5_000],
      ["split", -5_000]
    ])
    expect(await pendingOf()).toBe(before)
    expect(await pendingOf(`?subaccount_id=${sub}`)).toBe(share + 5_000)
    const shown = await api.get(`/public/v1/transactions/${half}`, { token: key })
    expect(shown.body.data.split).toEqual([{ subaccount_id: sub, amount: share }])
  })
})
