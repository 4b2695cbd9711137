/**
 * The BoletoProvider conformance kit: one suite every adapter of the port passes (docs/providers.md "Boleto: banks
 * by CNAB 240" › "The conformance kit", and "Adding a provider"). The slip's codes are checked here from FEBRABAN's
 * rules, written out below, not with src/domain/boleto.ts: an adapter and the domain code wrong the same way still
 * fail. A bank whose subject hands over its levers (pay a slip; make it unreachable) runs the cases that need them;
 * another skips them, and says so in its output.
 */
import { randomUUID } from "node:crypto"
import type { Layer } from "effect"
import { describe, expect, it } from "vitest"
import { kitRuntime } from "./kitRuntime.ts"
import { outcome } from "./outcome.ts"
import { type ChargeTerms, lastPayableDay } from "../../src/domain/chargeTerms.ts"
import { addCalendarDays, daysBetween } from "../../src/domain/calendar.ts"
import { saoPauloDate } from "../../src/domain/time.ts"
import {
  BoletoProvider,
  type BoletoRequest,
  type BoletoSettlement,
  type RegisteredBoleto
} from "../../src/ports/BoletoProvider.ts"

/** A payment at the bank: the slip, the day the buyer paid, and what was taken when not what the bank asks. */
export interface BankPayment {
  readonly request: BoletoRequest
  readonly paidOn: string
  /** Another amount than the bank asks that day (a cashier's): the bank's amount stands (docs/boleto.md). */
  readonly amount?: number
}

export interface BankLevers {
  /** The buyers pay these registered slips at the bank, each once. */
  readonly pay: (payments: ReadonlyArray<BankPayment>) => Promise<void>
  /**
   * Whether the bank computes what a slip asks on the day paid from the terms registered with it (bb-cnab240: the
   * remessa carries them). The sandbox bank is told the amount instead (src/app/Sandbox.ts computes it).
   */
  readonly computesTerms: boolean
  /**
   * For a bank that reports payments by settlement file (the BankFiles port) instead of `settlements`: the payments
   * among `ids` that the files it wrote so far report, read by the adapter's own reader, in the port's words as the
   * import applies them (src/app/BoletoFiles.ts). Absent: the bank reports them by `settlements`.
   */
  readonly filed?: (ids: ReadonlyArray<string>) => Promise<ReadonlyArray<BoletoSettlement>>
}

export interface BoletoKitSubject {
  readonly name: string
  readonly layer: Layer.Layer<BoletoProvider>
  /** The tenant the kit registers for: an account that exists (a bank adapter keeps its titles by account). */
  readonly accountId: string
  readonly bank?: BankLevers
  /** A request amount the bank answers unreachable (the sandbox's outage amount). Absent: no such lever. */
  readonly outageAmount?: number
}

// --- FEBRABAN, from the rules (Layout Padrão FEBRABAN for "boleto de cobrança") ---------------------------------
// Barcode (44): bank(3) currency(1) DV(1) factor(4) amount(10) free field(25).
// Digitable line (47): bank+currency+free[0,5)+DV · free[5,15)+DV · free[15,25)+DV · barcode DV · factor+amount.

/** Mod 10 (the line's three fields): weights 2, 1, 2, … from the right; a product's digits are added. */
const mod10 = (digits: string) => {
  let sum = 0
  ;[...digits].reverse().forEach((d, i) => {
    const p = Number(d) * (i % 2 === 0 ? 2 : 1)
    sum += Math.floor(p / 10) + (p % 10)
  })
  return (10 - (sum % 10)) % 10
}

/** Mod 11 (the barcode's general DV, over the other 43 digits): weights 2–9 cycling from the right; 0, 10, 11 → 1. */
const mod11 = (digits: string) => {
  let sum = 0
  ;[...digits].reverse().forEach((d, i) => (sum += Number(d) * (2 + (i % 8))))
  const dv = 11 - (sum % 11)
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv
}

const DAY_MS = 86_400_000
const FACTOR_BASE = Date.UTC(1997, 9, 7)
const dayNumber = (date: string) => (Date.parse(`${date}T00:00:00Z`) - FACTOR_BASE) / DAY_MS

/**
 * The day a due-date factor names: days since 1997-10-07, until 9999 (2025-02-21); then it restarts at 1000
 * (2025-02-22), so 1000–9999 repeat every 9000 days and the factor names the day of that series nearest today.
 */
const dateOfFactor = (factor: number, today: string) => {
  // Factors below 1000 named days of the first series only (before 2000-07-03).
  const series = factor < 1000 ? [factor] : [0, 1, 2, 3].map((k) => factor + 9000 * k)
  const nearest = series.reduce((a, b) => (Math.abs(b - dayNumber(today)) < Math.abs(a - dayNumber(today)) ? b : a))
  return new Date(FACTOR_BASE + nearest * DAY_MS).toISOString().slice(0, 10)
}

/** Every check of the slip the port answers for `request`, from the rules above. */
const expectFebrabanSlip = (slip: RegisteredBoleto, request: BoletoRequest, today: string) => {
  const { barcode, digitableLine: line } = slip
  expect(barcode).toMatch(/^\d{44}$/)
  expect(line).toMatch(/^\d{47}$/)
  expect(slip.bankCode).toMatch(/^\d{3}$/)
  expect(slip.bankName.trim()).not.toBe("")
  expect(slip.ourNumber).toMatch(/\S/)
  expect(barcode.slice(0, 3)).toBe(slip.bankCode)
  expect(barcode[3]).toBe("9") // real
  expect(Number(barcode[4])).toBe(mod11(barcode.slice(0, 4) + barcode.slice(5)))
  expect(Number(barcode.slice(9, 19))).toBe(request.amount)
  expect(dateOfFactor(Number(barcode.slice(5, 9)), today)).toBe(request.dueDate)
  // The line: each of its first three fields ends in its mod-10 DV, and it carries the barcode's data.
  for (const [from, to] of [
    [0, 10],
    [10, 21],
    [21, 32]
  ] as const) {
    expect(Number(line[to - 1]), `digitable line field ending at ${to}`).toBe(mod10(line.slice(from, to - 1)))
  }
  const free = line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31)
  expect(line.slice(0, 4) + line[32] + line.slice(33) + free).toBe(barcode)
}

const byAmount = (a: BoletoSettlement, b: BoletoSettlement) => a.amount - b.amount

export const boletoKit = (
  subject: () => Promise<BoletoKitSubject> | BoletoKitSubject,
  teardown?: () => Promise<void>
) =>
  describe("BoletoProvider conformance", () => {
    let s: BoletoKitSubject
    const { run, exit } = kitRuntime(BoletoProvider, subject, teardown, (started) => (s = started))
    const register = (r: BoletoRequest) => run((p) => p.register(r))
    /** What the bank reports paid among `ids`: by `settlements`, or by its settlement files for a bank by files. */
    const reported = async (ids: ReadonlyArray<string>) =>
      [...(await (s.bank?.filed ?? ((i) => run((p) => p.settlements(i))))(ids))].sort(byAmount)

    const today = () => saoPauloDate(new Date())
    const request = (amount: number, dueDate: string, terms?: ChargeTerms): BoletoRequest => ({
      accountId: s.accountId,
      transactionId: randomUUID(),
      amount,
      dueDate,
      lastPayableDay: lastPayableDay(dueDate, terms, 30),
      payerName: "Maria da Silva",
      payerDocument: "52998224725",
      ...(terms === undefined ? {} : { terms })
    })

    /**
     * A case that needs the bank's levers (`terms`: a bank that computes what a slip asks from its terms): skipped
     * for a subject without them, with the reason.
     */
    const bankIt = (name: string, body: (bank: BankLevers) => Promise<void>, needs?: "terms") =>
      it(name, async (ctx) => {
        if (s.bank === undefined) return ctx.skip("no lever to pay a slip at this bank")
        if (needs === "terms" && !s.bank.computesTerms) {
          return ctx.skip("this bank is told the amount paid: it computes no terms")
        }
        await body(s.bank)
      })

    it("registers a valid FEBRABAN slip: its bank, the amount to the centavo, the due date, check digits", async () => {
      const soon = addCalendarDays(today(), 10)
      const cases = [
        request(12_345, soon),
        request(1, addCalendarDays(today(), 365)),
        // Terms change what the bank asks on the day paid, never the slip's face value.
        request(54_321, soon, {
          fine: { kind: "percentage", value: 200 },
          discounts: [{ kind: "fixed", value: 1_000, until: soon }]
        }),
        // FEBRABAN's factor rollover: 9999 on 2025-02-21, 1000 again on 2025-02-22.
        request(123_456_789, "2025-02-21"),
        request(100_000, "2025-02-22")
      ]
      const slips: Array<RegisteredBoleto> = []
      for (const r of cases) {
        const slip = await register(r)
        expectFebrabanSlip(slip, r, today())
        slips.push(slip)
      }
      expect(slips.slice(3).map((slip) => slip.barcode.slice(5, 9))).toEqual(["9999", "1000"])
    })

    it("idempotent by transaction: the same one again, the same slip; another, another nosso número", async () => {
      const due = addCalendarDays(today(), 10)
      const r = request(15_000, due)
      const first = await register(r)
      expect(await register(r)).toEqual(first)
      const other = await register(request(15_000, due))
      expect(other.ourNumber).not.toBe(first.ourNumber)
      expect(other.barcode).not.toBe(first.barcode)
      expect(other.digitableLine).not.toBe(first.digitableLine)
    })

    it("idempotent under a race: eight registrations of one transaction at once answer one slip", async () => {
      // 40 rounds: a race of one in a few hundred rounds (a conflict met on the second unique index) was caught
      // once by CI at 5.
      for (let round = 0; round < 40; round++) {
        const r = request(16_000 + round, addCalendarDays(today(), 10))
        const slips = await Promise.all(Array.from({ length: 8 }, () => register(r)))
        expect(new Set(slips.map((s) => JSON.stringify(s))).size).toBe(1)
      }
    })

    it("settlements: none of the slips not paid, nothing for none asked", async () => {
      const due = addCalendarDays(today(), 10)
      const slips = [request(2_000, due), request(2_001, due)]
      for (const r of slips) await register(r)
      expect(await run((p) => p.settlements(slips.map((r) => r.transactionId)))).toEqual([])
      expect(await run((p) => p.settlements([randomUUID()]))).toEqual([])
      expect(await run((p) => p.settlements([]))).toEqual([])
    })

    bankIt("a slip paid at the bank is reported once, with what was paid to the centavo and the day", async (bank) => {
      const due = addCalendarDays(today(), 10)
      const yesterday = addCalendarDays(today(), -1)
      const onTime = request(12_345, due)
      const cashier = request(20_000, due)
      const unpaid = request(30_000, due)
      for (const r of [onTime, cashier, unpaid]) await register(r)
      await bank.pay([
        { request: onTime, paidOn: today() },
        // The bank took another amount (a cashier's): what it took stands.
        { request: cashier, paidOn: yesterday, amount: 19_990 }
      ])
      const ids = [onTime, cashier, unpaid].map((r) => r.transactionId)
      const expected = [
        { transactionId: onTime.transactionId, amount: 12_345, paidOn: today(), paidAt: expect.any(Date) },
        { transactionId: cashier.transactionId, amount: 19_990, paidOn: yesterday, paidAt: expect.any(Date) }
      ]
      expect(await reported(ids)).toEqual(expected)
      // Asked again: the same report, never a second payment.
      expect(await reported(ids)).toEqual(expected)
      // Only among those asked.
      expect(await reported([unpaid.transactionId])).toEqual([])
      // A bank by files reports a payment there, never also by `settlements` (src/ports/BoletoProvider.ts).
      if (bank.filed !== undefined) expect(await run((p) => p.settlements(ids))).toEqual([])
    })

    bankIt(
      "a slip is reported with what its terms ask the day paid: fine and interest late, discount early, abatement",
      async (bank) => {
        // Due on a Wednesday that is no holiday; each amount (centavos) is worked out by hand from docs/boleto.md:
        // each part rounded half up to the centavo on its own; late is after the last day without charges (the
        // due date, or the next business day); fine and interest count calendar days from the due date itself.
        const due = "2027-03-10"
        const lateTerms: ChargeTerms = {
          fine: { kind: "percentage", value: 200 },
          interest: { kind: "percentage_per_month", value: 100 }
        }
        /** One slip of `like`'s amount and terms (each its own transaction) for each day paid, with what is due. */
        const paidOnEach = (like: BoletoRequest, paid: ReadonlyArray<readonly [string, number]>) =>
          paid.map(([paidOn, amount]) => [{ ...like, transactionId: randomUUID() }, paidOn, amount] as const)
        const cases: ReadonlyArray<readonly [BoletoRequest, string, number]> = [
          // On the due date: nothing more.
          [request(100_000, due, lateTerms), due, 100_000],
          // 5 days late: 2 % fine = 2,000; 1 % a month for 5 days = 100,000 × 0.01 × 5/30 = 166.67 → 167.
          [request(100_000, due, lateTerms), "2027-03-15", 102_167],
          // 1 day late, the first day of the fine and of the interest: 2,000 + 100,000 × 0.01 × 1/30 = 33.33 → 33.
          [request(100_000, due, lateTerms), "2027-03-11", 102_033],
          // 12 days late: a fixed fine of 150; 7 a day × 12 = 84 (centavos).
          [
            request(12_345, due, {
              fine: { kind: "fixed", value: 150 },
              interest: { kind: "fixed_per_day", value: 7 }
            }),
            "2027-03-22",
            12_345 + 150 + 84
          ],
          // 30 days late at 0.07 % a day: 12,345 × 0.0007 × 30 = 259.245 → 259 (not 30 × a day's 8.64 rounded).
          [request(12_345, due, { interest: { kind: "percentage_per_day", value: 7 } }), "2027-04-09", 12_604],
          // 5,000 off until 2027-03-07, paid that day; paid the day after, nothing off.
          [
            request(100_000, due, { discounts: [{ kind: "fixed", value: 5_000, until: "2027-03-07" }] }),
            "2027-03-07",
            95_000
          ],
          [
            request(100_000, due, { discounts: [{ kind: "fixed", value: 5_000, until: "2027-03-07" }] }),
            "2027-03-08",
            100_000
          ],
          // 2.5 % until the due date, paid the day before: 80,000 × 0.025 = 2,000 off.
          [request(80_000, due, { discounts: [{ kind: "percentage", value: 250, until: due }] }), "2027-03-09", 78_000],
          // Due on Saturday 2027-03-13: the last day without charges is Monday the 15th; the Tuesday after owes
          // the fine and 3 days of interest from the due date: 2,000 + 100,000 × 0.01 × 3/30 = 100.
          [request(100_000, "2027-03-13", lateTerms), "2027-03-15", 100_000],
          [request(100_000, "2027-03-13", lateTerms), "2027-03-16", 102_100],
          // Three discounts, each through its date (the first still ahead is the one given): 3,000 off until
          // 03-01, 2,000 until 03-05, 1,000 until the due date; after it, nothing off.
          ...paidOnEach(
            request(100_000, due, {
              discounts: [
                { kind: "fixed", value: 3_000, until: "2027-03-01" },
                { kind: "fixed", value: 2_000, until: "2027-03-05" },
                { kind: "fixed", value: 1_000, until: due }
              ]
            }),
            [
              ["2027-03-01", 97_000],
              ["2027-03-02", 98_000],
              ["2027-03-05", 98_000],
              ["2027-03-06", 99_000],
              ["2027-03-10", 99_000],
              ["2027-03-11", 100_000]
            ]
          ),
          // The same in percentages of 80,000: 3 % = 2,400 until 03-01, 2 % = 1,600 until 03-05, 1 % = 800.
          ...paidOnEach(
            request(80_000, due, {
              discounts: [
                { kind: "percentage", value: 300, until: "2027-03-01" },
                { kind: "percentage", value: 200, until: "2027-03-05" },
                { kind: "percentage", value: 100, until: due }
              ]
            }),
            [
              ["2027-03-03", 78_400],
              ["2027-03-08", 79_200]
            ]
          ),
          // An abatement of 10,000 always comes off, and the percentages apply to the 90,000 left: on the due date
          // 90,000; 5 days late, 2 % of 90,000 = 1,800 and 90,000 × 0.01 × 5/30 = 150.
          ...paidOnEach(request(100_000, due, { ...lateTerms, abatement: { kind: "fixed", value: 10_000 } }), [
            [due, 90_000],
            ["2027-03-15", 91_950]
          ]),
          // 10 % of 12,345 = 1,234.5 → 1,235 off, leaving 11,110: with 5 % off until the due date (555.5 → 556),
          // 10,554 that day; 10 days late, 2 % = 222.2 → 222 and 11,110 × 0.01 × 10/30 = 37.03 → 37: 11,369.
          [
            request(12_345, due, {
              abatement: { kind: "percentage", value: 1_000 },
              discounts: [{ kind: "percentage", value: 500, until: due }]
            }),
            due,
            10_554
          ],
          [
            request(12_345, due, { ...lateTerms, abatement: { kind: "percentage", value: 1_000 } }),
            "2027-03-20",
            11_369
          ]
        ]
        for (const [r] of cases) await register(r)
        await bank.pay(cases.map(([r, paidOn]) => ({ request: r, paidOn })))
        const report = await reported(cases.map(([r]) => r.transactionId))
        expect(report).toHaveLength(cases.length)
        const byId = new Map(report.map((p) => [p.transactionId, p]))
        for (const [r, paidOn, amount] of cases) {
          const late = daysBetween(r.dueDate, paidOn)
          expect(byId.get(r.transactionId), `${r.amount} due ${r.dueDate} paid ${paidOn} (${late} days)`).toMatchObject(
            {
              amount,
              paidOn
            }
          )
        }
        expect(byId.size).toBe(cases.length)
      },
      "terms"
    )

    it("the bank unreachable: register is ProviderUnavailable, never a defect", async (ctx) => {
      if (s.outageAmount === undefined) return ctx.skip("no lever to make this bank unreachable")
      const r = request(s.outageAmount, addCalendarDays(today(), 10))
      expect(outcome(await exit((p) => p.register(r)))).toBe("ProviderUnavailable")
    })
  })
