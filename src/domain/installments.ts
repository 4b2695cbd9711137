/**
 * Card installments (CONTRACT-v1 §4). Up to `withoutInterest` installments the buyer pays the amount
 * (each installment floor(N/n), the first carries the remainder); above, the Price table (French
 * amortisation) at a monthly rate i: installment = round_half_up(N·i·(1+i)^n / ((1+i)^n − 1)),
 * total = installment · n. Computed exactly with integer rationals: a float would round some
 * half-centavo cases the wrong way.
 */
export interface InstallmentRules {
  readonly max: number
  readonly withoutInterest: number
  /** Monthly interest in percent as written in the configuration, e.g. "2.99". */
  readonly monthlyInterestPercent: string
  readonly minAmount: number
}

export interface InstallmentOption {
  readonly installment: number
  /** Each installment in centavos (interest-free: the later ones; the first carries the remainder). */
  readonly amount: number
  readonly total: number
  /** Percent per month, 0 when interest-free. */
  readonly interestRate: number
}

/** "2.99" → 299/10000 as the fraction a/b of the rate (percent / 100). Null when not a decimal ≥ 0. */
export const rateOf = (percent: string): { readonly a: bigint; readonly b: bigint } | null => {
  const match = /^(\d{1,3})(?:\.(\d{1,6}))?$/.exec(percent.trim())
  if (!match) return null
  const decimals = match[2] ?? ""
  return { a: BigInt(match[1]! + decimals), b: 100n * 10n ** BigInt(decimals.length) }
}

/** round_half_up(num / den) for non-negative integers. */
const roundHalfUp = (num: bigint, den: bigint) => (2n * num + den) / (2n * den)

/** The Price-table installment of `amount` over `n` months at rate a/b, exactly rounded half up. */
export const priceInstallment = (amount: number, n: number, rate: { readonly a: bigint; readonly b: bigint }) => {
  const { a, b } = rate
  if (a === 0n) return Number(roundHalfUp(BigInt(amount), BigInt(n)))
  const grown = (b + a) ** BigInt(n)
  const base = b ** BigInt(n)
  return Number(roundHalfUp(BigInt(amount) * a * grown, b * (grown - base)))
}

/** Option `n` for `amount`, whether or not it is offered (see `offered`). */
export const installmentOption = (amount: number, n: number, rules: InstallmentRules): InstallmentOption => {
  const rate = rateOf(rules.monthlyInterestPercent) ?? { a: 0n, b: 1n }
  // A rate of 0 % (INSTALLMENT_MONTHLY_INTEREST_PERCENT=0) is no interest: the interest-free rule, whose
  // total is the amount, not the Price table's round(N/n) · n, which would add or take up to n/2 centavos.
  if (n <= rules.withoutInterest || rate.a === 0n) {
    return { installment: n, amount: Math.floor(amount / n), total: amount, interestRate: 0 }
  }
  const each = priceInstallment(amount, n, rate)
  return { installment: n, amount: each, total: each * n, interestRate: Number(rules.monthlyInterestPercent) }
}

/** Option 1 always; others only when each installment reaches the minimum. */
export const offered = (option: InstallmentOption, rules: InstallmentRules) =>
  option.installment === 1 || option.amount >= rules.minAmount

/** The options offered for `amount`. */
export const installmentOptions = (amount: number, rules: InstallmentRules): ReadonlyArray<InstallmentOption> =>
  Array.from({ length: rules.max }, (_, i) => installmentOption(amount, i + 1, rules)).filter((o) => offered(o, rules))
