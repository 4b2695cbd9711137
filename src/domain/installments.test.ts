import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  installmentOption,
  installmentOptions,
  type InstallmentRules,
  priceInstallment,
  rateOf
} from "./installments.ts"

const RULES: InstallmentRules = { max: 12, withoutInterest: 1, monthlyInterestPercent: "2.99", minAmount: 500 }

describe("installments (CONTRACT-v1 §4)", () => {
  it("matches values computed by hand", () => {
    // N = 30000, i = 0.0299: (1+i)^2 = 1.06069401, (1+i)^3 = 1.092408…, (1+i)^12 = 1.424287…
    //   n = 2: 30000·0.0299·1.06069401 / 0.06069401 = 15676.0…  → 15676, total 31352
    //   n = 3: 30000·0.0299·1.0924087… / 0.0924087… = 10603.87… → 10604, total 31812
    //   n = 12: 30000·0.0299·1.424287… / 0.424287… = 3012.06…   → 3012, total 36144
    const options = installmentOptions(30_000, RULES)
    expect(options[0]).toEqual({ installment: 1, amount: 30_000, total: 30_000, interestRate: 0 })
    expect(options[1]).toEqual({ installment: 2, amount: 15_676, total: 31_352, interestRate: 2.99 })
    expect(options[2]).toEqual({ installment: 3, amount: 10_604, total: 31_812, interestRate: 2.99 })
    expect(options[11]).toEqual({ installment: 12, amount: 3_012, total: 36_144, interestRate: 2.99 })
    // Interest-free up to 3: floor(10001 / 3) = 3333, the first carries the remainder; the total is the amount.
    const free = { ...RULES, withoutInterest: 3 }
    expect(installmentOption(10_001, 3, free)).toEqual({
      installment: 3,
      amount: 3_333,
      total: 10_001,
      interestRate: 0
    })
  })

  it("omits options under INSTALLMENT_MIN_AMOUNT but always offers option 1", () => {
    expect(installmentOptions(100, RULES).map((o) => o.installment)).toEqual([1])
    // 1000 in 2: 1000·0.0299·1.0607 / 0.0607 = 522.5… → 523 ≥ 500; in 3: 356 < 500.
    expect(installmentOptions(1_000, RULES).map((o) => o.installment)).toEqual([1, 2])
  })

  it("rounds half up exactly (no float error at .5)", () => {
    // At rate 0 an installment is N/n rounded half up: 5/2 = 2.5 → 3, 7/2 = 3.5 → 4.
    expect(priceInstallment(5, 2, { a: 0n, b: 1n })).toBe(3)
    expect(priceInstallment(7, 2, { a: 0n, b: 1n })).toBe(4)
    // 10%: N = 2100, n = 2: 2100·0.1·1.21/0.21 = 1210 exactly.
    expect(priceInstallment(2_100, 2, rateOf("10")!)).toBe(1_210)
    // Exact halves where floating point falls a hair short: N = 101 495 000 in 2 at 2.99 % is exactly
    // 53 034 700.5 (floats give 53 034 700.49999984 and round down); N = 105 in 2 at 10 % is 60.5.
    expect(priceInstallment(101_495_000, 2, rateOf("2.99")!)).toBe(53_034_701)
    expect(priceInstallment(105, 2, rateOf("10")!)).toBe(61)
    expect(rateOf("2.99")).toEqual({ a: 299n, b: 10_000n })
    expect(rateOf("abc")).toBeNull()
  })

  const amounts = fc.integer({ min: 1, max: 9_999_999_999 })
  const rules = fc.record({
    max: fc.integer({ min: 1, max: 24 }),
    withoutInterest: fc.integer({ min: 1, max: 12 }),
    monthlyInterestPercent: fc
      .tuple(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 99 }))
      .map(([units, cents]) => `${units}.${String(cents).padStart(2, "0")}`),
    minAmount: fc.integer({ min: 0, max: 10_000 })
  })

  it("every option's total is exact: interest-free ones sum to the amount, the others are installment × n", () => {
    fc.assert(
      fc.property(amounts, rules, (amount, r) => {
        for (const o of installmentOptions(amount, r)) {
          // Interest-free: within INSTALLMENTS_WITHOUT_INTEREST, or at a rate of 0 %.
          if (o.installment <= r.withoutInterest || Number(r.monthlyInterestPercent) === 0) {
            expect(o.total).toBe(amount)
            const first = amount - o.amount * (o.installment - 1)
            expect(first + o.amount * (o.installment - 1)).toBe(amount)
            expect(first).toBeGreaterThanOrEqual(o.amount)
            expect(o.interestRate).toBe(0)
          } else {
            expect(o.total).toBe(o.amount * o.installment)
            expect(Number.isSafeInteger(o.total)).toBe(true)
          }
        }
      })
    )
  })

  it("totals grow with n up to the rounding of each installment, and stay within n/2 of the amount below", () => {
    // total(n) = n · round(x_n) and n · x_n grows with n at any rate ≥ 0, so total(n) ≥ total(n−1) − n/2 − (n−1)/2;
    // and x_n ≥ amount/n, so total(n) ≥ amount − n/2 (the Price table's own rounding, CONTRACT-v1 §4).
    fc.assert(
      fc.property(amounts, rules, (amount, r) => {
        const all = Array.from({ length: r.max }, (_, i) => installmentOption(amount, i + 1, r))
        for (let i = 0; i < all.length; i++) {
          const n = i + 1
          expect(2 * all[i]!.total).toBeGreaterThanOrEqual(2 * amount - n)
          if (i > 0) expect(2 * all[i]!.total).toBeGreaterThanOrEqual(2 * all[i - 1]!.total - (2 * n - 1))
        }
      })
    )
  })

  it("at a positive rate, offered options never charge less than the amount (INSTALLMENT_MIN_AMOUNT ≥ n/2)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 500, max: 9_999_999_999 }), (amount) => {
        for (const o of installmentOptions(amount, RULES)) expect(o.total).toBeGreaterThanOrEqual(amount)
      })
    )
  })

  it("at 0 % a month, every option charges the amount exactly, as the interest-free ones do", () => {
    const zero = { ...RULES, monthlyInterestPercent: "0.00" }
    expect(installmentOption(1_000, 3, zero)).toEqual({ installment: 3, amount: 333, total: 1_000, interestRate: 0 })
    expect(installmentOption(1_001, 2, { ...RULES, monthlyInterestPercent: "0" })).toMatchObject({ total: 1_001 })
    fc.assert(
      fc.property(amounts, fc.integer({ min: 1, max: 24 }), (amount, n) => {
        expect(installmentOption(amount, n, { ...zero, max: 24 }).total).toBe(amount)
      })
    )
  })

  it("the Price installment is within half a centavo of the exact value (checked with big rationals)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000_000 }), fc.integer({ min: 2, max: 24 }), (amount, n) => {
        const rate = rateOf("2.99")!
        const got = BigInt(priceInstallment(amount, n, rate))
        const grown = (rate.b + rate.a) ** BigInt(n)
        const num = BigInt(amount) * rate.a * grown
        const den = rate.b * (grown - rate.b ** BigInt(n))
        // |got − num/den| ≤ 1/2  ⇔  |2·got·den − 2·num| ≤ den, and exact halves round up.
        const diff = 2n * got * den - 2n * num
        expect(diff <= den && diff > -den).toBe(true)
      })
    )
  })
})
