import { describe, expect, it } from "vitest"
import { amountDue, type ChargeTerms, cobvValue, instructionLines, validateTerms } from "./chargeTerms.ts"

// R$ 1.000,00; fine 2 %; interest 1 % a month pro rata die (1,000.00 × 1 % / 30 = 33.333… centavos a
// day); R$ 50,00 off until 1 February, R$ 25,00 off until 4 February.
const TERMS: ChargeTerms = {
  fine: { kind: "percentage", value: 200 },
  interest: { kind: "percentage_per_month", value: 100 },
  discounts: [
    { kind: "fixed", value: 5_000, until: "2027-02-01" },
    { kind: "fixed", value: 2_500, until: "2027-02-04" }
  ]
}

describe("amount due on a date (hand-computed, docs/boleto.md)", () => {
  // Due on Saturday 2027-02-06: closed, and Carnival Monday and Tuesday follow, so it is payable
  // without charges until Ash Wednesday, 10 February.
  it.each([
    ["2027-01-29", "before the first discount's date", 5_000, 0, 0, 95_000],
    ["2027-02-01", "on the first discount's date", 5_000, 0, 0, 95_000],
    ["2027-02-02", "the second discount", 2_500, 0, 0, 97_500],
    ["2027-02-04", "on the second discount's date", 2_500, 0, 0, 97_500],
    ["2027-02-05", "after the discounts, before the due date", 0, 0, 0, 100_000],
    ["2027-02-06", "on the due date (a Saturday)", 0, 0, 0, 100_000],
    ["2027-02-07", "on the Sunday after", 0, 0, 0, 100_000],
    ["2027-02-08", "on Carnival Monday", 0, 0, 0, 100_000],
    ["2027-02-10", "on Ash Wednesday, the next business day", 0, 0, 0, 100_000],
    // 5 days from the due date: 100,000 × 1 % × 5 / 30 = 166.67 → 167.
    ["2027-02-11", "the day after the grace", 0, 2_000, 167, 102_167],
    // 30 days: exactly 1 %.
    ["2027-03-08", "a month late", 0, 2_000, 1_000, 103_000]
  ] as const)("due Saturday 2027-02-06, paid %s (%s)", (paidOn, _, discount, fine, interest, total) => {
    const due = amountDue(100_000, "2027-02-06", TERMS, paidOn)
    expect({ discount: due.discount, fine: due.fine, interest: due.interest, total: due.total }).toEqual({
      discount,
      fine,
      interest,
      total
    })
    expect(due.principal - due.abatement - due.discount + due.fine + due.interest).toBe(due.total)
  })

  it.each([
    // Due Friday 2027-02-05, a business day: the weekend and Carnival are late.
    ["2027-02-05", 0, 0, 100_000],
    ["2027-02-06", 2_000, 33, 102_033], // 1 day: 33.33 → 33
    ["2027-02-07", 2_000, 67, 102_067], // 2 days: 66.67 → 67
    ["2027-02-08", 2_000, 100, 102_100] // Carnival Monday, 3 days: 100
  ] as const)("due Friday 2027-02-05, paid %s", (paidOn, fine, interest, total) => {
    const due = amountDue(100_000, "2027-02-05", TERMS, paidOn)
    expect([due.fine, due.interest, due.total]).toEqual([fine, interest, total])
  })

  // 31 December has no bank service and no compensação (FEBRABAN, docs/calendar.md): a slip due on Thursday
  // 2026-12-31 is payable without charges until Monday 2027-01-04 (New Year's Day and a weekend between).
  it.each([
    ["2026-12-31", 0, 0, 100_000],
    ["2027-01-04", 0, 0, 100_000],
    // Late from the 5th: 5 days from the due date, 100,000 × 1 % × 5 / 30 = 166.67 → 167.
    ["2027-01-05", 2_000, 167, 102_167]
  ] as const)("due Thursday 2026-12-31 (no compensação), paid %s", (paidOn, fine, interest, total) => {
    const terms: ChargeTerms = {
      fine: { kind: "percentage", value: 200 },
      interest: { kind: "percentage_per_month", value: 100 }
    }
    const due = amountDue(100_000, "2026-12-31", terms, paidOn)
    expect([due.fine, due.interest, due.total]).toEqual([fine, interest, total])
  })

  it("abatement first; percentages on what it leaves", () => {
    const terms: ChargeTerms = {
      abatement: { kind: "fixed", value: 10_000 },
      fine: { kind: "percentage", value: 200 },
      interest: { kind: "percentage_per_month", value: 100 },
      discounts: [{ kind: "percentage", value: 500, until: "2027-03-01" }]
    }
    // base 90,000: 5 % = 4,500 off on time; late 10 days: 2 % = 1,800 and 90,000 × 1 % × 10 / 30 = 300.
    expect(amountDue(100_000, "2027-03-10", terms, "2027-03-01").total).toBe(85_500)
    expect(amountDue(100_000, "2027-03-10", terms, "2027-03-10").total).toBe(90_000)
    expect(amountDue(100_000, "2027-03-10", terms, "2027-03-20")).toMatchObject({
      abatement: 10_000,
      fine: 1_800,
      interest: 300,
      total: 92_100,
      daysLate: 10
    })
  })

  it("rounds each part half up to the centavo", () => {
    // 2 % of 25 = 0.5 → 1; 2 % of 12,345 = 246.9 → 247; 1 % a month of 12,345 for 1 day = 4.115 → 4.
    expect(amountDue(25, "2027-03-10", { fine: { kind: "percentage", value: 200 } }, "2027-03-11").fine).toBe(1)
    const d = amountDue(12_345, "2027-03-10", TERMS, "2027-03-11")
    expect([d.fine, d.interest]).toEqual([247, 4])
    // Fixed interest per day and percentage per day.
    const perDay = amountDue(10_000, "2027-03-10", { interest: { kind: "fixed_per_day", value: 7 } }, "2027-03-13")
    expect(perDay.interest).toBe(21)
    const pctDay = amountDue(10_000, "2027-03-10", { interest: { kind: "percentage_per_day", value: 3 } }, "2027-03-13")
    expect(pctDay.interest).toBe(9) // 10,000 × 0.03 % × 3 = 9
  })

  it("without terms the amount is the principal on any date", () => {
    expect(amountDue(4_990, "2027-02-05", undefined, "2027-04-01").total).toBe(4_990)
  })
})

describe("terms a bank would refuse", () => {
  const paths = (terms: ChargeTerms, amount = 10_000, due = "2027-02-10") =>
    validateTerms(terms, amount, due).map((i) => i.path.join("."))

  it("accepts the ordinary terms", () => {
    expect(paths(TERMS, 100_000)).toEqual([])
  })

  it("names each broken field", () => {
    expect(paths({ fine: { kind: "percentage", value: 0 } })).toEqual(["fine.value"])
    expect(paths({ fine: { kind: "percentage", value: 10_001 } })).toEqual(["fine.value"])
    expect(paths({ fine: { kind: "fixed", value: 10_000 } })).toEqual(["fine.value"])
    expect(paths({ interest: { kind: "fixed_per_day", value: -1 } })).toEqual(["interest.value"])
    expect(paths({ interest: { kind: "percentage_per_month", value: 1.5 } })).toEqual(["interest.value"])
    expect(paths({ abatement: { kind: "fixed", value: 10_000 } })).toEqual(["abatement.value"])
    const d = (value: number, until: string, kind: "fixed" | "percentage" = "fixed") => ({ kind, value, until })
    expect(paths({ discounts: [d(100, "2027-02-11")] })).toEqual(["discounts.0.until"])
    expect(paths({ discounts: [d(100, "2027-02-30")] })).toEqual(["discounts.0.until"])
    expect(paths({ discounts: [d(100, "2027-02-01"), d(100, "2027-02-02")] })).toEqual(["discounts.1.value"])
    expect(paths({ discounts: [d(200, "2027-02-02"), d(100, "2027-02-02")] })).toEqual(["discounts.1.until"])
    expect(paths({ discounts: [d(200, "2027-02-01"), d(100, "2027-02-02", "percentage")] })).toEqual([
      "discounts.1.type"
    ])
    expect(
      paths({ discounts: [d(4, "2027-02-01"), d(3, "2027-02-02"), d(2, "2027-02-03"), d(1, "2027-02-04")] })
    ).toEqual(["discounts"])
    expect(paths({ abatement: { kind: "fixed", value: 6_000 }, discounts: [d(4_000, "2027-02-01")] })).toEqual([
      "discounts"
    ])
  })
})

describe("the cobv counterpart", () => {
  it("maps each term to its modalidade, values with two decimals", () => {
    expect(cobvValue({ ...TERMS, abatement: { kind: "fixed", value: 1_050 } })).toEqual({
      multa: { modalidade: 2, valorPerc: "2.00" },
      juros: { modalidade: 3, valorPerc: "1.00" },
      desconto: {
        modalidade: 1,
        descontoDataFixa: [
          { data: "2027-02-01", valorPerc: "50.00" },
          { data: "2027-02-04", valorPerc: "25.00" }
        ]
      },
      abatimento: { modalidade: 1, valorPerc: "10.50" }
    })
  })
})

describe("the instruction lines a bank prints", () => {
  it("names each term with its amount in reais, the closed-day grace and the last day", () => {
    expect(instructionLines(100_000, "2027-02-06", TERMS, "2027-03-12")).toEqual([
      "Até 01/02/2027, conceder desconto de R$ 50,00.",
      "Até 04/02/2027, conceder desconto de R$ 25,00.",
      "Após 06/02/2027, cobrar multa de 2,00% (R$ 20,00).",
      "Após 06/02/2027, cobrar juros de mora de 1,00% ao mês, pro rata die (R$ 0,33 por dia de atraso).",
      "Vencimento em dia não útil: pagável sem encargos até 10/02/2027.",
      "Não receber após 12/03/2027."
    ])
    expect(
      instructionLines(123_456_78, "2027-02-05", { abatement: { kind: "fixed", value: 1_000_00 } }, "2027-02-05")
    ).toEqual(["Conceder abatimento de R$ 1.000,00.", "Não receber após 05/02/2027."])
    // 31 December: no compensação (FEBRABAN, docs/calendar.md), so the slip names the grace.
    expect(instructionLines(100_000, "2026-12-31", TERMS, "2027-02-03")).toContain(
      "Vencimento em dia não útil: pagável sem encargos até 04/01/2027."
    )
  })
})
