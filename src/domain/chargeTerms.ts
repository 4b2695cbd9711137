import { Schema } from "effect"
import { addCalendarDays, daysBetween, isDate, onOrNextBusinessDay } from "./calendar.ts"

/**
 * A boleto's charge terms (docs/boleto.md "Fine, interest, discounts and abatement"): a fine (multa)
 * and interest (juros) when paid late, up to three discounts for paying early, and an abatement.
 *
 * Each maps one to one to the API Pix `cobv` charge (`valor.multa`, `juros`, `desconto`,
 * `abatimento` and their `modalidade`, see `cobvModalities`), so a bolepix charges the same on both
 * rails. Fixed values are centavos; percentages are basis points (hundredths of a percent: 2 % =
 * 200), the two decimals `cobv`'s `valorPerc` and CNAB 240's rates carry.
 */
export const FixedOrPercentage = Schema.Struct({
  kind: Schema.Literal("fixed", "percentage"),
  /** centavos when fixed, basis points when percentage */
  value: Schema.Number
})
export type FixedOrPercentage = typeof FixedOrPercentage.Type

export const INTEREST_KINDS = ["fixed_per_day", "percentage_per_day", "percentage_per_month"] as const
export const Interest = Schema.Struct({
  /** Simple interest, calendar days from the due date; a month is 30 days (pro rata die). */
  kind: Schema.Literal(...INTEREST_KINDS),
  value: Schema.Number
})
export type Interest = typeof Interest.Type

export const Discount = Schema.Struct({
  kind: Schema.Literal("fixed", "percentage"),
  value: Schema.Number,
  /** The last day (São Paulo) the discount holds, inclusive. */
  until: Schema.String
})
export type Discount = typeof Discount.Type

export const ChargeTerms = Schema.Struct({
  fine: Schema.optional(FixedOrPercentage),
  interest: Schema.optional(Interest),
  discounts: Schema.optional(Schema.Array(Discount)),
  abatement: Schema.optional(FixedOrPercentage)
})
export type ChargeTerms = typeof ChargeTerms.Type

export const MAX_DISCOUNTS = 3
/** 100 %, in basis points. */
const WHOLE = 10_000n

/** A broken term, named by its path in the terms (`discounts[1].until`); each interface renames it. */
export interface TermIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

/** The field name of a term's path in the interface's words: `billet.discounts[1].until`. */
export const termField = (prefix: string, path: ReadonlyArray<string | number>): string =>
  path.reduce<string>((at, key) => (typeof key === "number" ? `${at}[${key}]` : `${at}.${key}`), prefix)

/** `value × rate / 10,000`, rounded half up to the centavo (docs/boleto.md "Rounding"). */
const share = (base: number, basisPoints: number, num = 1n, den = 1n): number => {
  const n = BigInt(base) * BigInt(basisPoints) * num
  const d = WHOLE * den
  return Number((2n * n + d) / (2n * d))
}

const valueOf = (term: FixedOrPercentage, base: number): number =>
  term.kind === "fixed" ? term.value : share(base, term.value)

/**
 * What a bank would refuse, for a boleto of `amount` centavos due on `dueDate`: every issue at once.
 * Percentages up to 100 %; a fixed value below the amount; discounts dated on or before the due date,
 * strictly increasing dates with strictly decreasing values, all of one kind (`cobv` carries one
 * `modalidade` for them); abatement plus the largest discount below the amount.
 */
export const validateTerms = (terms: ChargeTerms, amount: number, dueDate: string): ReadonlyArray<TermIssue> => {
  const issues: TermIssue[] = []
  const fail = (path: ReadonlyArray<string | number>, message: string) => issues.push({ path, message })
  const checkValue = (path: ReadonlyArray<string | number>, kind: string, value: number, cap: number) => {
    if (!Number.isSafeInteger(value) || value <= 0) {
      fail([...path, "value"], "must be greater than zero, in centavos or a percentage with at most 2 decimals")
    } else if (kind.startsWith("percentage") && value > 10_000) {
      fail([...path, "value"], "must be at most 100 %")
    } else if (!kind.startsWith("percentage") && value >= cap) {
      fail([...path, "value"], "must be less than the amount")
    }
  }
  if (terms.fine) checkValue(["fine"], terms.fine.kind, terms.fine.value, amount)
  if (terms.interest) checkValue(["interest"], terms.interest.kind, terms.interest.value, amount)
  if (terms.abatement) checkValue(["abatement"], terms.abatement.kind, terms.abatement.value, amount)
  const discounts = terms.discounts ?? []
  if (discounts.length > MAX_DISCOUNTS) fail(["discounts"], `at most ${MAX_DISCOUNTS} discounts`)
  discounts.forEach((d, i) => {
    checkValue(["discounts", i], d.kind, d.value, amount)
    if (!isDate(d.until)) fail(["discounts", i, "until"], "must be a date, YYYY-MM-DD")
    else if (d.until > dueDate) fail(["discounts", i, "until"], "must be on or before the due date")
    if (i > 0) {
      const prev = discounts[i - 1]!
      if (d.kind !== prev.kind) fail(["discounts", i, "type"], "every discount must be of one type")
      else if (isDate(d.until) && isDate(prev.until) && d.until <= prev.until) {
        fail(["discounts", i, "until"], "must be after the previous discount's date")
      } else if (d.value >= prev.value) fail(["discounts", i, "value"], "must be less than the previous discount")
    }
  })
  if (issues.length === 0) {
    const abatement = terms.abatement ? valueOf(terms.abatement, amount) : 0
    const base = amount - abatement
    const largest = discounts.length > 0 ? valueOf(discounts[0]!, base) : 0
    if (abatement + largest >= amount) {
      fail([discounts.length > 0 ? "discounts" : "abatement"], "abatement and discount must leave something to pay")
    }
  }
  return issues
}

/** The parts due on a payment date, in centavos: total = principal − abatement − discount + fine + interest. */
export interface AmountDue {
  readonly principal: number
  readonly abatement: number
  readonly discount: number
  readonly fine: number
  readonly interest: number
  readonly total: number
  /** Calendar days after the due date (0 when not late, including the closed-day grace). */
  readonly daysLate: number
}

/**
 * The last day a boleto may be paid ("Não receber após", docs/boleto.md): its due date, or the next business
 * day when that is closed (docs/calendar.md), plus `lateDays` when a fine or interest makes it payable late,
 * and that day too moved to the next business day when closed: API Pix 2.9.0 `validadeAposVencimento`,
 * Exemplo A (due Tuesday 2020-10-20, 4 days after: payable Saturday, Sunday and Monday 2020-10-26).
 */
export const lastPayableDay = (dueDate: string, terms: ChargeTerms | undefined, lateDays: number): string => {
  const payable = onOrNextBusinessDay(dueDate)
  return terms?.fine !== undefined || terms?.interest !== undefined
    ? onOrNextBusinessDay(addCalendarDays(payable, lateDays))
    : payable
}

/**
 * What a boleto of `principal` due on `dueDate` asks on `paidOn` (São Paulo dates; docs/boleto.md):
 * - the abatement always comes off; percentages apply to the principal less the abatement;
 * - a discount holds through its date (the earliest date still ahead wins: it is the largest); one dated on
 *   the due date holds through the next business day when that is closed, as the due date does (API Pix
 *   2.9.0: every field naming the due date takes its extension, "desconto; juros e multa");
 * - late is after the due date or, when it falls on a closed day, after the next business day
 *   (docs/calendar.md); then the fine once, and simple interest for each calendar day from the due
 *   date (a month = 30 days);
 * - each part is rounded half up to the centavo on its own, then they are added.
 */
export const amountDue = (
  principal: number,
  dueDate: string,
  terms: ChargeTerms | undefined,
  paidOn: string
): AmountDue => {
  const t = terms ?? {}
  const abatement = t.abatement ? valueOf(t.abatement, principal) : 0
  const base = principal - abatement
  const extended = onOrNextBusinessDay(dueDate)
  const late = paidOn > extended
  const daysLate = late ? daysBetween(dueDate, paidOn) : 0
  const ahead = late ? undefined : (t.discounts ?? []).find((d) => paidOn <= (d.until === dueDate ? extended : d.until))
  const discount = ahead ? valueOf(ahead, base) : 0
  const fine = late && t.fine ? valueOf(t.fine, base) : 0
  let interest = 0
  if (late && t.interest) {
    const { kind, value } = t.interest
    interest =
      kind === "fixed_per_day"
        ? value * daysLate
        : kind === "percentage_per_day"
          ? share(base, value, BigInt(daysLate))
          : share(base, value, BigInt(daysLate), 30n)
  }
  return { principal, abatement, discount, fine, interest, total: base - discount + fine + interest, daysLate }
}

/**
 * The `cobv` modalities the terms are (API Pix 2.x, `CobVValor`): multa 1 fixed / 2 percentage;
 * juros 1 fixed per calendar day / 2 percent per calendar day / 3 percent per month (calendar days);
 * desconto 1 fixed until the dates / 2 percentage until the dates (`descontoDataFixa`, up to 3);
 * abatimento 1 fixed / 2 percentage. Values as `cobv` writes them: reais or percent, two decimals.
 */
export const cobvValue = (terms: ChargeTerms) => {
  const money = (n: number) => (n / 100).toFixed(2)
  const fp = (term: FixedOrPercentage) => ({ modalidade: term.kind === "fixed" ? 1 : 2, valorPerc: money(term.value) })
  const discounts = terms.discounts ?? []
  return {
    ...(terms.fine ? { multa: fp(terms.fine) } : {}),
    ...(terms.interest
      ? {
          juros: {
            modalidade:
              terms.interest.kind === "fixed_per_day" ? 1 : terms.interest.kind === "percentage_per_day" ? 2 : 3,
            valorPerc: money(terms.interest.value)
          }
        }
      : {}),
    ...(discounts.length > 0
      ? {
          desconto: {
            modalidade: discounts[0]!.kind === "fixed" ? 1 : 2,
            descontoDataFixa: discounts.map((d) => ({ data: d.until, valorPerc: money(d.value) }))
          }
        }
      : {}),
    ...(terms.abatement ? { abatimento: fp(terms.abatement) } : {})
  }
}

const reais = (centavos: number) =>
  `R$ ${Math.floor(centavos / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ".")},${String(centavos % 100).padStart(2, "0")}`
const percent = (basisPoints: number) => `${(basisPoints / 100).toFixed(2).replace(".", ",")}%`
const brDate = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}`

/**
 * The instruction lines a bank prints for the terms (ficha de compensação, "Instruções"), in
 * Portuguese, with the amounts in reais as the cashier charges them (docs/boleto.md). `lastDay` is the
 * last day it may be paid (São Paulo date).
 */
export const instructionLines = (
  principal: number,
  dueDate: string,
  terms: ChargeTerms | undefined,
  lastDay: string
): ReadonlyArray<string> => {
  const t = terms ?? {}
  const abatement = t.abatement ? valueOf(t.abatement, principal) : 0
  const base = principal - abatement
  const lines: string[] = []
  if (t.abatement) lines.push(`Conceder abatimento de ${reais(abatement)}.`)
  for (const d of t.discounts ?? []) {
    const what = d.kind === "fixed" ? reais(d.value) : `${percent(d.value)} (${reais(valueOf(d, base))})`
    lines.push(`Até ${brDate(d.until)}, conceder desconto de ${what}.`)
  }
  if (t.fine) {
    const what =
      t.fine.kind === "fixed" ? reais(t.fine.value) : `${percent(t.fine.value)} (${reais(valueOf(t.fine, base))})`
    lines.push(`Após ${brDate(dueDate)}, cobrar multa de ${what}.`)
  }
  if (t.interest) {
    const { kind, value } = t.interest
    const what =
      kind === "fixed_per_day"
        ? `${reais(value)} por dia de atraso`
        : kind === "percentage_per_day"
          ? `${percent(value)} ao dia (${reais(share(base, value))} por dia de atraso)`
          : `${percent(value)} ao mês, pro rata die (${reais(share(base, value, 1n, 30n))} por dia de atraso)`
    lines.push(`Após ${brDate(dueDate)}, cobrar juros de mora de ${what}.`)
  }
  const payable = onOrNextBusinessDay(dueDate)
  if (payable !== dueDate) lines.push(`Vencimento em dia não útil: pagável sem encargos até ${brDate(payable)}.`)
  lines.push(`Não receber após ${brDate(lastDay)}.`)
  return lines
}

/** A boleto's payment as the bank reported it, in parts (docs/boleto.md "What a payment records"). */
export interface PaymentParts {
  readonly paidOn: string
  readonly amount: number
  readonly principal: number
  readonly abatement: number
  readonly discount: number
  readonly fine: number
  readonly interest: number
}

/**
 * The parts of `amount`, paid on `paidOn`: our terms' parts for that day and, when the bank collected
 * another amount (its own computation, a cashier's), the bank's amount stands — the difference is
 * interest when more was paid, discount when less, so the parts always add up to what was paid.
 */
export const paymentParts = (
  principal: number,
  dueDate: string,
  terms: ChargeTerms | undefined,
  paidOn: string,
  amount: number
): PaymentParts => {
  const due = amountDue(principal, dueDate, terms, paidOn)
  const difference = amount - due.total
  return {
    paidOn,
    amount,
    principal,
    abatement: due.abatement,
    discount: due.discount + Math.max(0, -difference),
    fine: due.fine,
    interest: due.interest + Math.max(0, difference)
  }
}
