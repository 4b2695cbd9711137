import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  availableAt,
  chargedOnPayment,
  cut,
  disputeShares,
  failedRefundShares,
  feeOf,
  feeReturned,
  isBalanced,
  MERCHANT,
  parseFee,
  percentageShare,
  planSale,
  refundShares,
  type RefundsTaken,
  settlementAt,
  take
} from "./ledger.ts"
import { saoPauloDate } from "./time.ts"

const schedule = (reserve = 0) => ({
  pixDays: 0,
  billetDays: 1,
  cardDays: 30,
  reserveDays: 30,
  reserve: { a: BigInt(reserve), b: 100n }
})

describe("fees (CONTRACT-v1 §7)", () => {
  it("parses P%, C and P%+C, and refuses anything else", () => {
    expect(parseFee("3.99%")).toEqual({ rate: { a: 399n, b: 10_000n }, fixed: 0 })
    expect(parseFee("349")).toEqual({ rate: { a: 0n, b: 100n }, fixed: 349 })
    expect(parseFee("2.5%+39")).toEqual({ rate: { a: 25n, b: 1_000n }, fixed: 39 })
    expect(parseFee(" 1 % + 10 ")).toEqual({ rate: { a: 1n, b: 100n }, fixed: 10 })
    for (const bad of ["", "%", "3.99", "abc", "3.99%+", "+39", "101%", "3,99%", "39+2%", "-1%", "1.2.3%"]) {
      expect(parseFee(bad), bad).toBeNull()
    }
    expect(parseFee("3.99")).toEqual(null)
  })

  it("rounds half up exactly, where floating point would not", () => {
    // 0.99% of 5,050 is 49.995 (floating point: 49.99499…): half up gives 50.
    expect(feeOf(parseFee("0.99%")!, 5_050)).toBe(50)
    expect(feeOf(parseFee("3.99%")!, 10_000)).toBe(399)
    expect(feeOf(parseFee("3.99%")!, 12_345)).toBe(493) // 492.5655
    expect(feeOf(parseFee("2.5%+39")!, 1_000)).toBe(64)
    // A fixed fee never exceeds the sale.
    expect(feeOf(parseFee("349")!, 100)).toBe(100)
  })

  it("returns the fee in proportion, cumulatively: the whole fee once all is refunded", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 100_000 }), (total, rawFee) => {
        const fee = Math.min(rawFee, total)
        expect(feeReturned(fee, total, total)).toBe(fee)
        expect(feeReturned(fee, 0, total)).toBe(0)
      })
    )
    expect(feeReturned(99, 4_000, 10_000)).toBe(40) // 39.6
    expect(feeReturned(99, 5_000, 10_000)).toBe(50) // 49.5 → half up
  })

  it("percentages of amount_total are rounded down", () => {
    expect(percentageShare(12.5, 10_000)).toBe(1_250)
    expect(percentageShare(33.333, 100)).toBe(33)
    expect(percentageShare(101, 100)).toBeNull()
  })
})

describe("receivables", () => {
  it("cut like installments: floor, the remainder on the first", () => {
    expect(cut(10_000, 3)).toEqual([3_334, 3_333, 3_333])
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 24 }), (amount, n) => {
        const parts = cut(amount, n)
        expect(parts.reduce((s, p) => s + p, 0)).toBe(amount)
        expect(Math.max(...parts) - Math.min(...parts)).toBeLessThanOrEqual(n)
      })
    )
  })

  it("fall due at 00:00 São Paulo of the paid date + N days; N = 0 is at once", () => {
    // 23:30 in São Paulo on the 21st is 02:30Z on the 22nd: one day later is the 22nd's midnight there.
    const paid = new Date("2026-11-22T02:30:00Z")
    expect(availableAt(paid, 1).toISOString()).toBe("2026-11-22T03:00:00.000Z")
    expect(availableAt(paid, 0)).toBe(paid)
  })

  describe("settlement days follow each rail's calendar (docs/calendar.md)", () => {
    // Friday 2027-02-05, 15:00 in São Paulo: Carnival Monday and Tuesday (8–9) follow the weekend.
    const friday = new Date("2027-02-05T18:00:00Z")
    const day = (d: Date) => saoPauloDate(d)
    it("a boleto's D+N counts business days", () => {
      expect(day(settlementAt("BOLETO", friday, 1, 1))).toBe("2027-02-10")
      expect(day(settlementAt("BOLETO", friday, 2, 1))).toBe("2027-02-11")
      expect(settlementAt("BOLETO", friday, 1, 1).toISOString()).toBe("2027-02-10T03:00:00.000Z")
      // Paid on Good Friday (a holiday): D+1 is Monday's next business day after it.
      expect(day(settlementAt("BOLETO", new Date("2027-03-26T15:00:00Z"), 1, 1))).toBe("2027-03-29")
      // Paid on 31 December: D+1 skips New Year's Day and the weekend.
      expect(day(settlementAt("BOLETO", new Date("2026-12-31T15:00:00Z"), 1, 1))).toBe("2027-01-04")
      expect(settlementAt("BOLETO", friday, 0, 1)).toBe(friday)
    })
    it("PIX counts calendar days", () => {
      expect(day(settlementAt("PIX", friday, 1, 1))).toBe("2027-02-06")
      expect(day(settlementAt("PIX", friday, 3, 1))).toBe("2027-02-08")
    })
    it("a card installment falls k × N calendar days later, on the next business day when closed", () => {
      // 2027-01-09 + 30 = 2027-02-08 (Carnival Monday) → Wednesday 10; + 60 = 2027-03-10 (a Wednesday).
      const sold = new Date("2027-01-09T15:00:00Z")
      expect(day(settlementAt("CARD", sold, 30, 1))).toBe("2027-02-10")
      expect(day(settlementAt("CARD", sold, 30, 2))).toBe("2027-03-10")
      // 2026-11-25 + 30 = Christmas Day (Friday) → Monday 28.
      expect(day(settlementAt("CARD", new Date("2026-11-25T15:00:00Z"), 30, 1))).toBe("2026-12-28")
      // 2027-02-24 + 30 = 2027-03-26, Good Friday → Monday 29.
      expect(day(settlementAt("CARD", new Date("2027-02-24T15:00:00Z"), 30, 1))).toBe("2027-03-29")
    })
  })

  it("a card sale in installments: sale, fee, split and reserve, each installment k·30 days later", () => {
    const paidAt = new Date("2026-11-22T15:00:00Z")
    const plan = planSale({
      method: "CARD",
      amountTotal: 10_000,
      installments: 3,
      paidAt,
      fee: 399,
      shares: [{ party: "sub", amount: 1_000 }],
      schedule: schedule(10)
    })
    expect(isBalanced(plan.postings)).toBe(true)
    const merchant = plan.receivables.filter((r) => r.party === MERCHANT && r.balance === "pending")
    // net 10,000 − 399 − 1,000 = 8,601; reserve floor(860.1) = 860; 7,741 in three.
    expect(merchant.map((r) => r.amount)).toEqual([2_581, 2_580, 2_580])
    expect(merchant.map((r) => r.availableAt.toISOString())).toEqual([
      "2026-12-22T03:00:00.000Z",
      "2027-01-21T03:00:00.000Z",
      // Day +90 is Saturday 2027-02-20: the acquirer pays on Monday the 22nd (docs/calendar.md).
      "2027-02-22T03:00:00.000Z"
    ])
    expect(plan.receivables.filter((r) => r.party === "sub").map((r) => r.amount)).toEqual([334, 333, 333])
    expect(plan.receivables.find((r) => r.balance === "reserved")?.amount).toBe(860)
  })

  it("every plan balances and its receivables hold exactly what it credits", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("PIX" as const, "BOLETO" as const, "CARD" as const),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 100 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (method, total, installments, reserve, part) => {
          const fee = feeOf(parseFee("3.99%")!, total)
          const share = Math.floor(part * (total - fee))
          const plan = planSale({
            method,
            amountTotal: total,
            installments,
            paidAt: new Date(),
            fee,
            shares: share > 0 ? [{ party: "sub", amount: share }] : [],
            schedule: schedule(reserve)
          })
          expect(isBalanced(plan.postings)).toBe(true)
          const credited = plan.postings.filter((p) => p.party !== "system").reduce((s, p) => s + p.amount, 0)
          expect(plan.receivables.reduce((s, r) => s + r.amount, 0)).toBe(credited)
          expect(plan.receivables.every((r) => r.amount > 0)).toBe(true)
        }
      )
    )
  })
})

describe("a payment below its fee and splits (docs/ledger.md)", () => {
  it("charges what the payment covers: no receivable below zero, the fee then the splits come down", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 2_000 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }),
        fc.double({ min: 0, max: 1.2, noNaN: true }),
        (total, fixedFee, parts, paidPart) => {
          const fee = Math.min(total, fixedFee)
          // Shares as the API accepts them: together at most the total less the fee.
          const room = total - fee
          const shares: Array<number> = []
          for (const part of parts) shares.push(Math.floor(part * (room - shares.reduce((a, b) => a + b, 0))))
          const paid = Math.floor(paidPart * total)
          const charged = chargedOnPayment(paid, fee, shares)
          const shared = charged.shares.reduce((a, b) => a + b, 0)
          // What the rule says, restated: the fee never more than what is left after the splits; the
          // splits unchanged when the payment covers them, else each floor(paid × share / Σ shares).
          const before = shares.reduce((a, b) => a + b, 0)
          if (before <= paid) {
            expect(charged.shares).toEqual(shares)
            expect(charged.fee).toBe(Math.min(fee, paid - before))
          } else {
            expect(charged.fee).toBe(0)
            expect(charged.shares).toEqual(shares.map((s) => Math.floor((paid * s) / before)))
          }
          expect(charged.fee + shared).toBeLessThanOrEqual(paid)
          const difference = paid - total
          const plan = planSale({
            method: "BOLETO",
            amountTotal: total,
            installments: 1,
            paidAt: new Date(),
            fee: charged.fee,
            shares: charged.shares.filter((s) => s > 0).map((amount, i) => ({ party: `sub${i}`, amount })),
            schedule: schedule(),
            charges: {
              fine: 0,
              interest: Math.max(0, difference),
              discount: Math.max(0, -difference),
              abatement: 0
            }
          })
          expect(isBalanced(plan.postings)).toBe(true)
          expect(plan.receivables.every((r) => r.amount > 0)).toBe(true)
          const credited = plan.postings.filter((p) => p.party !== "system").reduce((s, p) => s + p.amount, 0)
          expect(plan.receivables.reduce((s, r) => s + r.amount, 0)).toBe(credited)
        }
      )
    )
  })

  it("vectors: covered, 1 centavo short, below the fee, below the splits", () => {
    expect(chargedOnPayment(10_000, 349, [3_000])).toEqual({ fee: 349, shares: [3_000] })
    expect(chargedOnPayment(9_999, 349, [9_651])).toEqual({ fee: 348, shares: [9_651] })
    expect(chargedOnPayment(300, 349, [])).toEqual({ fee: 300, shares: [] })
    expect(chargedOnPayment(5_000, 349, [6_000, 3_000])).toEqual({ fee: 0, shares: [3_333, 1_666] })
  })
})

describe("taking money back", () => {
  it("draws on the sources in order and reports a shortfall unless a dispute allows it", () => {
    const sources = [
      { kind: "receivable" as const, id: "a", balance: "pending" as const, amount: 300 },
      { kind: "receivable" as const, id: "r", balance: "reserved" as const, amount: 100 },
      { kind: "available" as const, amount: 50 }
    ]
    expect(take(350, sources, false)).toEqual({
      parts: [
        { source: sources[0], amount: 300 },
        { source: sources[1], amount: 50 }
      ],
      shortfall: 0
    })
    expect(take(500, sources, false).shortfall).toBe(50)
    expect(take(500, sources, true)).toEqual({
      parts: [
        { source: sources[0], amount: 300 },
        { source: sources[1], amount: 100 },
        { source: sources[2], amount: 100 }
      ],
      shortfall: 0
    })
  })

  it("refunds in pieces take from recipients exactly what one whole refund would", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
        fc.double({ min: 0, max: 0.9, noNaN: true }),
        (total, cuts, sharePart) => {
          const fee = feeOf(parseFee("3.99%")!, total)
          const shares = [{ party: "sub", amount: Math.floor(sharePart * (total - fee)) }]
          let before = 0
          let recipient = 0
          let merchant = 0
          let feeBack = 0
          for (const c of [...cuts, 1]) {
            const amount = c === 1 ? total - before : Math.floor(c * (total - before))
            if (amount <= 0) continue
            const r = refundShares({ amountTotal: total, fee, shares }, before, amount)
            recipient += r.recipients[0]!.amount
            merchant += r.merchant
            feeBack += r.feeDelta
            before += amount
          }
          expect(before).toBe(total)
          expect(recipient).toBe(shares[0]!.amount)
          expect(feeBack).toBe(fee)
          expect(merchant + recipient).toBe(total)
        }
      )
    )
  })

  // Several recipients rounded down: the merchant, who takes the rest, must never give back more than
  // its whole share, or a piece is refused a merchant the whole refund would not be (CONTRACT-v1 §7).
  // The books' figures are carried from piece to piece, as Books.takeRefund reads them.
  const splitSale = fc
    .integer({ min: 1, max: 100_000 })
    .chain((total) =>
      fc.record({
        total: fc.constant(total),
        // Integers: fast-check's doubles crowd near zero, which would make most shares nothing.
        weights: fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 2, maxLength: 5 }),
        // Up to every centavo past the fee: a merchant left with nothing, or a few centavos, is where the fee
        // returned, rounded down with the recipients, would ask it for more than the sale left it.
        of: fc.integer({ min: 0, max: 100 }),
        // A percentage of what is left, or (negative) all but that many centavos: the pieces that leave
        // fewer centavos than there are recipients are where rounding down each of them bites.
        cuts: fc.array(fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: -4, max: -1 })), {
          minLength: 1,
          maxLength: 8
        })
      })
    )
    .map(({ total, weights, of, cuts }) => {
      const fee = feeOf(parseFee("0.99%")!, total)
      const pot = Math.floor((of * (total - fee)) / 100)
      const all = weights.reduce((a, b) => a + b, 0) || 1
      const shares = weights.map((w, i) => ({ party: `sub${i}`, amount: Math.floor((w * pot) / all) }))
      return { total, fee, shares, cuts }
    })

  const refundInPieces = (
    sale: { total: number; fee: number; shares: ReadonlyArray<{ party: string; amount: number }> },
    cuts: ReadonlyArray<number>,
    last: boolean
  ) => {
    const givenBy = new Map<string, number>()
    let before = 0
    let merchant = 0
    let fee = 0
    for (const c of last ? [...cuts, "rest" as const] : cuts) {
      const left = sale.total - before
      const amount = c === "rest" ? left : c < 0 ? left + c : Math.floor((c * left) / 100)
      if (amount <= 0) continue
      const taken: RefundsTaken = { recipients: new Map(givenBy), fee }
      const r = refundShares({ amountTotal: sale.total, fee: sale.fee, shares: sale.shares }, before, amount, taken)
      for (const p of r.recipients) {
        expect(p.amount).toBeGreaterThanOrEqual(0)
        givenBy.set(p.party, (givenBy.get(p.party) ?? 0) + p.amount)
      }
      merchant += r.merchant
      fee += r.feeDelta
      before += amount
      const merchantWhole = sale.total - sale.shares.reduce((s, x) => s + x.amount, 0)
      expect(merchant).toBeLessThanOrEqual(merchantWhole)
      // What it pays net (its part less the fee returned) never passes what the sale left it.
      expect(merchant - fee).toBeLessThanOrEqual(merchantWhole - sale.fee)
    }
    return { givenBy, before, merchant, fee }
  }

  it("with several recipients, no piece asks the merchant more than the sale left it; all end at their shares", () => {
    fc.assert(
      fc.property(splitSale, (sale) => {
        const { before, fee, givenBy, merchant } = refundInPieces(sale, sale.cuts, true)
        expect(before).toBe(sale.total)
        expect(fee).toBe(sale.fee)
        for (const s of sale.shares) expect(givenBy.get(s.party)).toBe(s.amount)
        expect(merchant).toBe(sale.total - sale.shares.reduce((a, s) => a + s.amount, 0))
      })
    )
  })

  it("a merchant the sale left a few centavos is never asked more by a piece (the fee returned counted)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 1_000_000 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 3 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom("0.99%", "3.99%"),
        (total, keeps, recipients, cut, rate) => {
          const fee = feeOf(parseFee(rate)!, total)
          const pot = total - fee - keeps
          if (pot < recipients) return
          const shares = Array.from({ length: recipients }, (_, i) => ({
            party: `sub${i}`,
            amount: i === 0 ? pot - (recipients - 1) * Math.floor(pot / recipients) : Math.floor(pot / recipients)
          }))
          const amount = Math.max(1, Math.min(total - 1, Math.floor(cut * total)))
          const r = refundShares({ amountTotal: total, fee, shares }, 0, amount)
          expect(r.merchant - r.feeDelta).toBeLessThanOrEqual(keeps)
        }
      ),
      { numRuns: 2_000 }
    )
  })

  it("9 999 of 10 000 with two recipients of 1 000 asks the merchant its 8 000 at most", () => {
    const shares = [
      { party: "sub1", amount: 1_000 },
      { party: "sub2", amount: 1_000 }
    ]
    const r = refundShares({ amountTotal: 10_000, fee: 99, shares }, 0, 9_999)
    // floor(9 999 × 1 000 / 10 000) = 999 each would leave 8 001 on the merchant, whose whole share is 8 000.
    expect(r.merchant).toBe(8_000)
    expect(r.recipients.map((p) => p.amount).sort()).toEqual([1_000, 999].sort())
  })

  it("a dispute after any refunds holds exactly what is left, never a negative part", () => {
    fc.assert(
      fc.property(splitSale, (sale) => {
        const { before, fee, givenBy } = refundInPieces(sale, sale.cuts, false)
        if (before >= sale.total) return
        const held = disputeShares({ amountTotal: sale.total, shares: sale.shares }, before, sale.total - before, {
          recipients: givenBy,
          fee
        })
        for (const h of held) expect(h.amount).toBeGreaterThanOrEqual(0)
        expect(held.reduce((s, h) => s + h.amount, 0)).toBe(sale.total - before)
      })
    )
  })

  it("a dispute of the last centavo after a refund the books took by the rounded-down rule holds one centavo", () => {
    // Books of before the merchant's cap: 999 from each recipient, 8 001 from the merchant.
    const taken: RefundsTaken = {
      recipients: new Map([
        ["sub1", 999],
        ["sub2", 999]
      ]),
      fee: 99
    }
    const shares = [
      { party: "sub1", amount: 1_000 },
      { party: "sub2", amount: 1_000 }
    ]
    const held = disputeShares({ amountTotal: 10_000, shares }, 9_999, 1, taken)
    expect(held.reduce((s, h) => s + h.amount, 0)).toBe(1)
    expect(held.every((h) => h.amount >= 0)).toBe(true)
    // A last-centavo refund that took a centavo from each recipient, failed while a dispute was open.
    const posting = (party: string, amount: number) =>
      ({ party, book: "available", type: "refund", amount, description: "refund" }) as const
    const failed = failedRefundShares(1, [
      posting("sub1", -1),
      posting("sub2", -1),
      posting(MERCHANT, 1),
      { ...posting("system", 1), book: "payers" as never }
    ])
    expect(failed.reduce((s, h) => s + h.amount, 0)).toBe(1)
    expect(failed.every((h) => h.amount >= 0)).toBe(true)
  })
})
