import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addCalendarDays, onOrNextBusinessDay } from "../src/domain/calendar.ts"
import { client, type Client, signup } from "./support/http.ts"
import { boletoBody, newOrder, PROCESS } from "./support/payments.ts"
import { pdfTextRuns } from "./support/pdfText.ts"
import { runCli } from "./support/processes.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Bolepix in test mode (issue 21 §3; docs/boleto.md "Bolepix"): a boleto that also carries a due-date PIX
 * charge. Whichever rail pays first settles it with the amount its terms ask that day; a payment by the
 * other rail afterwards is recorded and returned, never settled: the merchant's books show one sale, to
 * the centavo, and the gateway's books show the second payment received and owed or given back.
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

const BILLET_FEE = 349
const today = () => new Date().toLocaleDateString("en-CA", { timeZone: "America/Sao_Paulo" })
const halfUp = (n: number, d: number) => Math.floor((2 * n + d) / (2 * d))
const customer = { name: "Beatriz Souza", email: "bia@example.com", document: "11.222.333/0001-81" }

/** A v1 billet with pix: true, due `due`, fine 2 % and interest 1 % a month. */
const bolepix = async (due: string, amount = 100_000) => {
  const created = await api.post(
    "/public/v1/transactions",
    {
      method: "billet",
      amount,
      expires_at: `${due}T12:00:00-03:00`,
      customer,
      billet: {
        pix: true,
        fine: { type: "percentage", value: 2 },
        interest: { type: "percentage_per_month", value: 1 }
      }
    },
    { token: key }
  )
  expect(created.status, created.text).toBe(201)
  expect(created.body.data.pix.qr_code, created.text).toMatch(/^000201/)
  expect(created.body.data.billet.digitable_line).toMatch(/^\d{47}$/)
  return created.body.data.hash as string
}

const pay = (id: string, query: string) => api.post(`/api/sandbox/transactions/${id}/pay?${query}`, undefined, { key })

const detail = async (id: string) => {
  const reply = await api.get(`/api/payment-gateway/transaction/${id}`, { key })
  expect(reply.status, reply.text).toBe(200)
  return reply.body
}

const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
  for (let i = 0; i < 150; i++) {
    const found = await probe()
    if (found !== undefined) return found
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

const waitPaid = (id: string) =>
  waitFor(`${id} paid`, async () => {
    const t = await detail(id)
    return t.status === "PAID" ? t : undefined
  })

const seconds = async (id: string) =>
  (
    await server.db.query(
      `select rail, amount::int as amount, status from bolepix_second_payments where transaction_id = $1
       order by created_at`,
      [id]
    )
  ).rows as Array<{ rail: string; amount: number; status: string }>

/** Every posting of the transaction, by party, type and book, summed. */
const postings = async (id: string) =>
  (
    await server.db.query(
      `select party, book, type, sum(amount)::int as amount from ledger_postings
       where transaction_id = $1 and type <> 'settlement' group by party, book, type order by party, type, book`,
      [id]
    )
  ).rows as Array<{ party: string; book: string; type: string; amount: number }>

const merchant = (rows: Awaited<ReturnType<typeof postings>>) =>
  rows.filter((r) => r.party === "merchant").map((r) => [r.type, r.amount])
const system = (rows: Awaited<ReturnType<typeof postings>>, type: string) =>
  rows.filter((r) => r.party === "system" && r.type === type).map((r) => [r.book, r.amount])

describe("bolepix: issued with both codes", () => {
  it("v2 boleto.pix: the slip and the QR code, the QR served, the terms shown in camelCase", async () => {
    const order = await newOrder(api, key, 50_000)
    const reply = await api.post(
      PROCESS,
      boletoBody(order.orderId, 50_000, {
        boleto: {
          pix: true,
          fine: { type: "PERCENTAGE", value: 2 },
          interest: { type: "PERCENTAGE_PER_MONTH", value: 1 },
          discounts: [{ type: "FIXED", value: 1_000, until: today() }]
        }
      }),
      { key }
    )
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.boleto.digitableLine).toMatch(/^\d{47}$/)
    expect(reply.body.pix.emv).toMatch(/^000201/)
    const png = await fetch(reply.body.pix.qrCodeUrl)
    expect(png.status).toBe(200)
    expect(png.headers.get("content-type")).toBe("image/png")
    const t = await detail(reply.body.transactionId)
    expect(t.boleto.terms).toEqual({
      fine: { type: "PERCENTAGE", value: 2 },
      interest: { type: "PERCENTAGE_PER_MONTH", value: 1 },
      discounts: [{ type: "FIXED", value: 1_000, until: today() }]
    })
    expect(t.boleto.payment).toBeUndefined()
    expect(t.pix.emv).toBe(reply.body.pix.emv)
  })

  it("the PDF prints the QR code's section beside the slip; the checkout page shows both codes", async () => {
    const id = await bolepix(addCalendarDays(today(), 7))
    const v1 = await api.get(`/public/v1/transactions/${id}`, { token: key })
    const pdf = await fetch(v1.body.data.billet.pdf_url)
    expect(pdf.status).toBe(200)
    const runs = pdfTextRuns(Buffer.from(await pdf.arrayBuffer()))
    expect(runs.join("\n")).toContain("Pague também com PIX")
    expect(runs.join("")).toContain(v1.body.data.pix.qr_code.slice(0, 30))
    const page = await fetch(v1.body.data.checkout_url)
    const html = await page.text()
    expect(page.status).toBe(200)
    expect(html).toContain('id="billet-line"')
    expect(html).toContain('id="pix-code"')
    expect(html).toContain(v1.body.data.pix.qr_code_url.replace(/^https?:\/\/[^/]+/, ""))
  })

  it("a plain boleto has no PIX side, and rail=pix on it is a 400 naming rail", async () => {
    const order = await newOrder(api, key, 20_000)
    const reply = await api.post(PROCESS, boletoBody(order.orderId, 20_000), { key })
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body.pix).toBeUndefined()
    const refused = await pay(reply.body.transactionId, "rail=pix")
    expect(refused.status, refused.text).toBe(400)
    expect(refused.text).toContain("rail")
    const bad = await pay(reply.body.transactionId, "rail=cash")
    expect(bad.status, bad.text).toBe(400)
  })
})

describe("bolepix: the first payment settles, the second is returned", () => {
  it("PIX 10 days late, then the barcode: settled by the PIX with its charges; the slip owed back", async () => {
    const due = addCalendarDays(today(), 7)
    const id = await bolepix(due)
    const paidOn = addCalendarDays(due, 10)
    // 100,000 × 2 % = 2,000; 100,000 × 1 % × 10 / 30 = 333.33 → 333.
    const want = 100_000 + halfUp(100_000 * 2, 100) + halfUp(100_000 * 10, 100 * 30)
    expect(want).toBe(102_333)
    const byPix = await pay(id, `rail=pix&date=${paidOn}`)
    expect(byPix.status, byPix.text).toBe(200)
    expect(byPix.body.status).toBe("PAID")
    const t = await detail(id)
    expect(t.boleto.payment).toEqual({
      paidOn,
      amountPaid: want,
      principal: 100_000,
      fine: 2_000,
      interest: 333,
      discount: 0,
      abatement: 0,
      rail: "pix"
    })
    // The barcode paid too, later: the bank reports it, the confirmation job records it to return.
    const byBarcode = await pay(id, `date=${addCalendarDays(paidOn, 1)}`)
    expect(byBarcode.status, byBarcode.text).toBe(202)
    const second = await waitFor("the barcode's second payment", async () => {
      const rows = await seconds(id)
      return rows.length > 0 ? rows : undefined
    })
    // 11 days: 100,000 × 1 % × 11 / 30 = 366.67 → 367.
    expect(second).toEqual([{ rail: "barcode", amount: 100_000 + 2_000 + 367, status: "to_return" }])
    expect((await detail(id)).boleto.payment.rail).toBe("pix")
    const rows = await postings(id)
    expect(merchant(rows)).toEqual([
      ["fee", -BILLET_FEE],
      ["fine", 2_000],
      ["interest", 333],
      ["sale", 100_000]
    ])
    expect(system(rows, "second_payment")).toEqual([
      ["payers", -102_367],
      ["payouts", 102_367]
    ])
    expect(system(rows, "second_payment_return")).toEqual([])

    // The operator's path for the slip's money (docs/boleto.md "Bolepix"): listed, given back by hand,
    // closed by the CLI with its return posting — once, however often it is run.
    const env = { DATABASE_URL: server.databaseUrl }
    const open = await runCli<Array<{ id: string; transactionId: string; status: string; amount: number }>>(
      ["bolepix", "returns"],
      env
    )
    const owed = open.find((o) => o.transactionId === id)!
    expect(owed).toMatchObject({ status: "to_return", amount: 102_367 })
    const closed = await runCli<{ outcome: string }>(["bolepix", "returned", "--id", owed.id], env)
    expect(closed.outcome).toBe("returned")
    const again = await runCli<{ outcome: string }>(["bolepix", "returned", "--id", owed.id], env)
    expect(again.outcome).toBe("already_returned")
    expect(await seconds(id)).toEqual([{ rail: "barcode", amount: 102_367, status: "returned" }])
    expect(system(await postings(id), "second_payment_return")).toEqual([
      ["payers", 102_367],
      ["payouts", -102_367]
    ])
    expect((await runCli<Array<{ id: string }>>(["bolepix", "returns"], env)).map((o) => o.id)).not.toContain(owed.id)
    await expect(runCli(["bolepix", "returned", "--id", "00000000-0000-0000-0000-000000000000"], env)).rejects.toThrow(
      /no second payment/
    )
  }, 180_000)

  it("the barcode, then PIX: settled once by the bank's report; the PIX given back by devolução", async () => {
    const due = addCalendarDays(today(), 7)
    const id = await bolepix(due)
    const byBarcode = await pay(id, `date=${today()}`)
    expect(byBarcode.status, byBarcode.text).toBe(202)
    const paid = await waitPaid(id)
    expect(paid.boleto.payment).toMatchObject({ amountPaid: 100_000, rail: "barcode" })
    // Settled by its barcode: the sandbox PSP's cobv withdrawn by the job the settlement queued, at the first try.
    const runs = (outcome: string) =>
      fetch(server.metricsUrl)
        .then((r) => r.text())
        .then((text) => {
          const found = new RegExp(`^job_runs_total\\{task="withdraw_due_charge",outcome="${outcome}"\\} (\\S+)$`, "m")
          return Number(found.exec(text)?.[1] ?? 0)
        })
    await waitFor("the cobv's withdrawal", async () => ((await runs("success")) >= 1 ? true : undefined))
    expect(await runs("failure")).toBe(0)
    // The sandbox's buyer still pays the QR (as a PIX that beat the withdrawal would be): the return path.
    const byPix = await pay(id, `rail=pix&date=${today()}`)
    expect(byPix.status, byPix.text).toBe(200)
    expect(byPix.body.status).toBe("PAID")
    expect(await seconds(id)).toEqual([{ rail: "pix", amount: 100_000, status: "returned" }])
    const received = await server.db.query(`select outcome from pix_received where transaction_id = $1`, [id])
    expect(received.rows).toEqual([{ outcome: "returned" }])
    const rows = await postings(id)
    expect(merchant(rows)).toEqual([
      ["fee", -BILLET_FEE],
      ["sale", 100_000]
    ])
    expect(system(rows, "second_payment")).toEqual([
      ["payers", -100_000],
      ["payouts", 100_000]
    ])
    expect(system(rows, "second_payment_return")).toEqual([
      ["payers", 100_000],
      ["payouts", -100_000]
    ])
    // The merchant's totals: one sale.
    const v1 = await api.get(`/public/v1/transactions/${id}`, { token: key })
    expect(v1.body.data).toMatchObject({ status: "paid", amount_total: 100_000, refunded_amount: 0 })
  })

  it("a PIX dated after the last payable day, the boleto still PENDING for the bank's report: returned", async () => {
    const due = addCalendarDays(today(), 7)
    const id = await bolepix(due)
    // Payable 30 days late (fine and interest: BOLETO_LATE_DAYS; a closed last day moved to the next business
    // day, as API Pix's validadeAposVencimento is), then PENDING two business days more for the bank's report
    // (BOLETO_REPORT_DAYS): a PIX of the day after the last payable day does not settle it.
    const last = onOrNextBusinessDay(addCalendarDays(onOrNextBusinessDay(due), 30))
    const byPix = await pay(id, `rail=pix&date=${addCalendarDays(last, 1)}&amount=100000`)
    expect(byPix.status, byPix.text).toBe(200)
    expect(byPix.body.status).toBe("PENDING")
    expect(await seconds(id)).toEqual([{ rail: "pix", amount: 100_000, status: "returned" }])
    // On the last payable day itself it settles.
    const id2 = await bolepix(due)
    const onLast = await pay(id2, `rail=pix&date=${last}`)
    expect(onLast.body.status).toBe("PAID")
  })

  it("settled by PIX, then its barcode paid on the last day and reported after it: recorded to return", async () => {
    const due = addCalendarDays(today(), 7)
    const id = await bolepix(due)
    expect((await pay(id, `rail=pix&date=${today()}`)).body.status).toBe("PAID")
    // Its last payable day was yesterday (as if the slip had come to it): the bank's report of a payment
    // made then comes after it (docs/boleto.md "When a boleto expires").
    const yesterday = addCalendarDays(today(), -1)
    await server.db.query(
      `update transactions set expires_at = ($2::date + 1)::timestamp at time zone 'America/Sao_Paulo' - interval '1 ms'
       where id = $1`,
      [id, yesterday]
    )
    const byBarcode = await pay(id, `date=${yesterday}`)
    expect(byBarcode.status, byBarcode.text).toBe(202)
    const second = await waitFor("the last day's barcode payment", async () => {
      const rows = await seconds(id)
      return rows.length > 0 ? rows : undefined
    })
    expect(second.map((r: any) => [r.rail, r.status])).toEqual([["barcode", "to_return"]])
  })

  it("both rails at once, on many boletos at varied offsets: each settles once, the other returned", async () => {
    const due = addCalendarDays(today(), 7)
    const ids = await Promise.all(Array.from({ length: 8 }, () => bolepix(due, 10_000)))
    // The barcode is paid at the bank; the confirmation job reports it about a second later. The PIX comes
    // at offsets around that moment, so the two settlements race in different orders.
    await Promise.all(ids.map((id) => pay(id, `date=${today()}`)))
    await Promise.all(
      ids.map(async (id, i) => {
        await new Promise((r) => setTimeout(r, 700 + i * 100))
        const byPix = await pay(id, `rail=pix&date=${today()}`)
        expect(byPix.status, byPix.text).toBe(200)
      })
    )
    // Three PIX at once on one more: one settles, two go back.
    const more = await bolepix(due, 10_000)
    const three = await Promise.all([1, 2, 3].map(() => pay(more, `rail=pix&date=${today()}`)))
    for (const r of three) expect(r.status, r.text).toBe(200)
    for (const id of [...ids, more]) {
      const t = await waitPaid(id)
      const rail = t.boleto.payment.rail as string
      const second = await waitFor(`${id}'s second payment`, async () => {
        const rows = await seconds(id)
        return rows.length >= (id === more ? 2 : 1) ? rows : undefined
      })
      if (id === more) {
        expect(second).toEqual([
          { rail: "pix", amount: 10_000, status: "returned" },
          { rail: "pix", amount: 10_000, status: "returned" }
        ])
      } else {
        expect(second).toHaveLength(1)
        expect(second[0]!.rail).toBe(rail === "pix" ? "barcode" : "pix")
        expect(second[0]!.status).toBe(rail === "pix" ? "to_return" : "returned")
      }
      const rows = await postings(id)
      expect(merchant(rows), id).toEqual([
        ["fee", -BILLET_FEE],
        ["sale", 10_000]
      ])
    }
  })
})
