import { describe, expect, it } from "vitest"
import { isBusinessDay, weekday } from "./calendar.ts"
import { amountDue, type ChargeTerms, lastPayableDay } from "./chargeTerms.ts"

// A boleto's days that fall on a closed day (docs/boleto.md "The API Pix counterpart").
//
// Source: BCB API Pix 2.9.0 (/work/shared/specs/bcb-pix-api-2.9.0.yaml, `CobVCalendario.validadeAposVencimento`,
// lines ~5312-5370): "Sempre que a data de vencimento cair em um fim de semana ou em um feriado ... ela deve ser
// automaticamente prorrogada para o primeiro dia útil subsequente. Todos os campos que façam referência a esta
// data (validadeAposVencimento; desconto; juros e multa) devem assumir essa prorrogação", and its Exemplo A:
// vencimento terça 2020-10-20, validadeAposVencimento 4 → paid Saturday 24, Sunday 25 and Monday 26 accepted,
// Tuesday 27 refused. docs/boleto.md says the bolepix's cobv is "payable as long as the slip" and charges what
// the slip charges on every day but one case (a closed due date paid after its next business day).

const FINE: ChargeTerms = { fine: { kind: "percentage", value: 200 } }

describe("the last payable day when the late window ends on a closed day", () => {
  it("API Pix Exemplo A: due Tuesday 2020-10-20, 4 days after → payable through Monday 2020-10-26", () => {
    expect(weekday("2020-10-24")).toBe(6) // 20 + 4 calendar days is a Saturday
    expect(lastPayableDay("2020-10-20", FINE, 4)).toBe("2020-10-26")
  })

  it("due Thursday 2027-03-04, BOLETO_LATE_DAYS=30: 2027-04-03 is a Saturday, payable through Monday the 5th", () => {
    expect(isBusinessDay("2027-04-03")).toBe(false)
    expect(lastPayableDay("2027-03-04", FINE, 30)).toBe("2027-04-05")
  })

  it("the last payable day is always a business day (API Pix examples A, B and C)", () => {
    // Exemplos B and C (vencimento sexta 2020-12-25, feriado): 0 → 28/12, 1 → 29/12; these already hold.
    expect(lastPayableDay("2020-12-25", FINE, 0)).toBe("2020-12-28")
    expect(lastPayableDay("2020-12-25", FINE, 1)).toBe("2020-12-29")
    for (let d = 0; d < 60; d++) {
      const due = new Date(Date.UTC(2027, 0, 1 + d)).toISOString().slice(0, 10)
      for (const late of [1, 5, 30]) expect(isBusinessDay(lastPayableDay(due, FINE, late)), `${due}+${late}`).toBe(true)
    }
  })
})

describe("a discount dated on a due date that falls on a closed day", () => {
  // Due Saturday 2027-02-06 (Carnival follows: payable without charges until Ash Wednesday 2027-02-10), with
  // R$ 50,00 off until the due date. The cobv of the same bolepix grants it through the prorrogated date
  // (API Pix, above); the slip's amountDue does not, though the payment is on time.
  const terms: ChargeTerms = { discounts: [{ kind: "fixed", value: 5_000, until: "2027-02-06" }] }

  it("paid on Ash Wednesday 2027-02-10 (the prorrogated due date) still gets the discount: 950,00", () => {
    const due = amountDue(100_000, "2027-02-06", terms, "2027-02-10")
    expect({ discount: due.discount, total: due.total }).toEqual({ discount: 5_000, total: 95_000 })
  })

  it("paid on Carnival Monday 2027-02-08 also gets it", () => {
    expect(amountDue(100_000, "2027-02-06", terms, "2027-02-08").total).toBe(95_000)
  })
})
