import { addBusinessDays, addCalendarDays, onOrNextBusinessDay } from "./calendar.ts"
import { addDaysInSaoPaulo, saoPauloDate, startOfDayInSaoPaulo } from "./time.ts"

/**
 * The books of CONTRACT-v1 §7, as pure rules: which postings each movement makes and how much money
 * is taken from where. Amounts are integer centavos; shares and fees are computed with BigInt
 * rationals so that no rounding depends on floating point. Storage lives behind the Journal and
 * Receivables ports; the programs that apply these rules live in src/app/Books.ts.
 */

/** A merchant's or subaccount's balances. */
export type Balance = "available" | "pending" | "reserved"
export const BALANCES: ReadonlyArray<Balance> = ["available", "pending", "reserved"]

/** The gateway's side of every entry (CONTRACT-v1 §7 "system accounts"). */
export type SystemBook = "acquirer" | "payers" | "fees" | "payouts"

export const POSTING_TYPES = [
  "sale",
  "fee",
  "settlement",
  "reserve",
  "reserve_release",
  "refund",
  "chargeback",
  "med",
  "split",
  "withdraw",
  "withdraw_reversal",
  // A boleto paid with its charge terms (docs/boleto.md).
  "fine",
  "interest",
  "discount",
  "abatement",
  // A bolepix's second payment, by the other rail, and its return: the gateway's books only (docs/boleto.md).
  "second_payment",
  "second_payment_return"
] as const
/**
 * The types of the merchant's and subaccounts' postings (v1 financials) and, on the gateway's books only,
 * `bank_fee`: the bank's fee on a boleto's occurrence (docs/providers.md "Boleto: banks by CNAB 240"), and a
 * boleto payment the gateway did not apply, owed to its payer, and its return (docs/boleto.md "Payments the
 * gateway does not apply"), and so a PIX received for a charge and not applied to it (`not_payable`,
 * `amount_mismatch`) and its return (docs/providers.md "The receiver").
 */
export type PostingType =
  | StatementPostingType
  | "bank_fee"
  | "boleto_payment_to_return"
  | "boleto_payment_returned"
  | "pix_payment_to_return"
  | "pix_payment_returned"
/** A posting type a merchant's or subaccount's statement can show. */
export type StatementPostingType = (typeof POSTING_TYPES)[number]

/** Who a posting belongs to: the merchant, one of its subaccounts (its id), or the gateway. */
export const MERCHANT = "merchant"
export const SYSTEM = "system"
export type Party = string

export interface Posting {
  readonly party: Party
  /** A Balance for the merchant and subaccounts, a SystemBook for the gateway. */
  readonly book: Balance | SystemBook
  readonly type: PostingType
  /** Signed centavos, never zero. */
  readonly amount: number
  readonly description: string
}

/** One journal entry: postings that sum to zero, written once under `key`. */
export interface Entry {
  readonly key: string
  readonly transactionId: string | null
  readonly withdrawalId: string | null
  readonly postings: ReadonlyArray<Posting>
}

export const sum = (amounts: ReadonlyArray<number>) => amounts.reduce((s, a) => s + a, 0)

export const isBalanced = (postings: ReadonlyArray<Posting>) =>
  postings.reduce((s, p) => s + BigInt(p.amount), 0n) === 0n

/** Drops zero postings (the journal refuses them) and orders postings the way rows are locked. */
export const entry = (
  key: string,
  refs: { readonly transactionId?: string | null; readonly withdrawalId?: string | null },
  postings: ReadonlyArray<Posting>
): Entry => ({
  key,
  transactionId: refs.transactionId ?? null,
  withdrawalId: refs.withdrawalId ?? null,
  postings: postings.filter((p) => p.amount !== 0)
})

// ---------------------------------------------------------------------------------------------------
// Fees, shares, rounding

/** round_half_up(num / den) for non-negative integers. */
export const roundHalfUp = (num: bigint, den: bigint) => (2n * num + den) / (2n * den)

/** A fee as configured: `P%`, `C` (centavos) or `P%+C` (CONTRACT-v1 §7). */
export interface Fee {
  /** The percentage as the fraction a/b of the amount. */
  readonly rate: { readonly a: bigint; readonly b: bigint }
  readonly fixed: number
}

/** "3.99%" | "349" | "2.5%+39" → Fee; null when malformed or above 100 %. */
export const parseFee = (raw: string): Fee | null => {
  const match = /^(?:(\d{1,3})(?:\.(\d{1,6}))?%)?(\+)?(\d{1,9})?$/.exec(raw.replace(/\s+/g, ""))
  if (!match) return null
  const [, whole, decimals = "", plus, fixed] = match
  // One of the two parts at least; "+" only between them.
  if (
    (whole === undefined && fixed === undefined) ||
    (plus !== undefined) !== (whole !== undefined && fixed !== undefined)
  )
    return null
  const b = 100n * 10n ** BigInt(decimals.length)
  const a = whole === undefined ? 0n : BigInt(whole + decimals)
  return a > b ? null : { rate: { a, b }, fixed: fixed === undefined ? 0 : Number(fixed) }
}

/**
 * The fee of a sale of `amountTotal`, rounded half up, never more than the sale itself: a fixed fee
 * above a tiny sale would otherwise leave the merchant owing money for being paid.
 */
export const feeOf = (fee: Fee, amountTotal: number) =>
  Math.min(amountTotal, Number(roundHalfUp(BigInt(amountTotal) * fee.rate.a, fee.rate.b)) + fee.fixed)

/**
 * What a sale brings in when its payment is `paid` rather than amount_total — a boleto's, which its
 * discount, its abatement or its bank can make less (docs/boleto.md "What a payment records") — leaves
 * for the fee and the splits (docs/ledger.md "A payment below its fee and splits"): the fee never more
 * than what was paid less the splits, and the splits never more than what was paid, cut pro rata
 * (rounded down, the merchant keeping the centavos), so that, as with `feeOf`, the merchant is never
 * left owing money for being paid and no receivable is below zero. Unchanged when the payment covers both.
 */
export const chargedOnPayment = (
  paid: number,
  fee: number,
  shares: ReadonlyArray<number>
): { readonly fee: number; readonly shares: ReadonlyArray<number> } => {
  const shared = sum(shares)
  if (shared <= paid) return { fee: Math.max(0, Math.min(fee, paid - shared)), shares }
  return { fee: 0, shares: shares.map((share) => proportional(Math.max(0, paid), share, shared)) }
}

/** The fee returned once `refunded` of `amountTotal` went back: round_half_up(fee · refunded / total). */
export const feeReturned = (fee: number, refunded: number, amountTotal: number) =>
  amountTotal === 0 ? 0 : Number(roundHalfUp(BigInt(fee) * BigInt(refunded), BigInt(amountTotal)))

/** floor(part · share / total): a recipient's part of `part` of a sale (CONTRACT-v1 §8). */
export const proportional = (part: number, share: number, amountTotal: number) =>
  amountTotal === 0 ? 0 : Number((BigInt(part) * BigInt(share)) / BigInt(amountTotal))

/** "12.5" → the share of amountTotal it names, rounded down; null when not a percentage 0–100. */
export const percentageShare = (percentage: number, amountTotal: number): number | null => {
  const match = /^(\d{1,3})(?:\.(\d{1,6}))?$/.exec(String(percentage))
  if (!match) return null
  const decimals = match[2] ?? ""
  const a = BigInt(match[1]! + decimals)
  const b = 100n * 10n ** BigInt(decimals.length)
  if (a > b) return null
  return Number((BigInt(amountTotal) * a) / b)
}

/** `amount` cut into `n` parts like installments: floor, the remainder on the first. */
export const cut = (amount: number, n: number): ReadonlyArray<number> => {
  const each = Math.floor(amount / n)
  return Array.from({ length: n }, (_, i) => (i === 0 ? amount - each * (n - 1) : each))
}

/** 00:00 in São Paulo of the day `days` after `paidAt`'s; `days` = 0 means at once (CONTRACT-v1 §7). */
export const availableAt = (paidAt: Date, days: number): Date =>
  days === 0 ? paidAt : startOfDayInSaoPaulo(addDaysInSaoPaulo(paidAt, days).date)

/**
 * When part `k` of a sale becomes available (docs/calendar.md): PIX runs every day, so D+N calendar
 * days; a boleto is credited by the bank's compensação, so D+N business days; a card installment
 * falls due k × N calendar days after the sale and is paid by the acquirer on that day or, when it is
 * not a business day, on the next one. N = 0 means at once, whatever the day.
 */
export const settlementAt = (method: "PIX" | "BOLETO" | "CARD", paidAt: Date, days: number, k: number): Date => {
  if (days === 0) return paidAt
  const sold = saoPauloDate(paidAt)
  const date =
    method === "PIX"
      ? addCalendarDays(sold, days * k)
      : method === "BOLETO"
        ? addBusinessDays(sold, days * k)
        : onOrNextBusinessDay(addCalendarDays(sold, days * k))
  return startOfDayInSaoPaulo(date)
}

// ---------------------------------------------------------------------------------------------------
// Sale

export interface Schedule {
  readonly pixDays: number
  readonly billetDays: number
  readonly cardDays: number
  readonly reserveDays: number
  /** RESERVE_PERCENT as a/b. */
  readonly reserve: { readonly a: bigint; readonly b: bigint }
}

export interface Share {
  readonly party: Party
  readonly amount: number
}

export interface NewReceivable {
  readonly party: Party
  /** pending: a receivable of the sale; reserved: the rolling reserve. */
  readonly balance: "pending" | "reserved"
  readonly installment: number
  readonly amount: number
  readonly availableAt: Date
}

export interface SaleInput {
  readonly method: "PIX" | "BOLETO" | "CARD"
  readonly amountTotal: number
  readonly installments: number
  readonly paidAt: Date
  readonly fee: number
  readonly shares: ReadonlyArray<Share>
  readonly schedule: Schedule
  /** A boleto paid with its charge terms: what came on top of amount_total and what came off it. */
  readonly charges?: {
    readonly fine: number
    readonly interest: number
    readonly discount: number
    readonly abatement: number
  }
}

export const counterparty = (method: "PIX" | "BOLETO" | "CARD"): SystemBook =>
  method === "CARD" ? "acquirer" : "payers"

/**
 * A paid sale (CONTRACT-v1 §7, §8): the merchant's pending gets the whole amount_total (`sale`), less
 * the fee (`fee`), less each recipient's share (`split`), less the reserve on card sales (`reserve`);
 * the receivables say when each part becomes available.
 */
export const planSale = (input: SaleInput): { readonly postings: Posting[]; readonly receivables: NewReceivable[] } => {
  const { amountTotal, fee, shares, schedule } = input
  const shared = sum(shares.map((s) => s.amount))
  const c = input.charges ?? { fine: 0, interest: 0, discount: 0, abatement: 0 }
  // Fine and interest are the merchant's revenue; discount and abatement its concession (docs/boleto.md).
  const net = amountTotal - fee - shared + c.fine + c.interest - c.discount - c.abatement
  const reserve =
    input.method === "CARD" ? Number((BigInt(Math.max(0, net)) * schedule.reserve.a) / schedule.reserve.b) : 0
  const n = input.method === "CARD" ? Math.max(1, input.installments) : 1
  const days =
    input.method === "CARD" ? schedule.cardDays : input.method === "PIX" ? schedule.pixDays : schedule.billetDays
  const at = (k: number) => settlementAt(input.method, input.paidAt, days, k)
  const other = counterparty(input.method)
  const postings: Posting[] = [
    { party: MERCHANT, book: "pending", type: "sale", amount: amountTotal, description: "sale" },
    { party: SYSTEM, book: other, type: "sale", amount: -amountTotal, description: "sale" },
    { party: MERCHANT, book: "pending", type: "fee", amount: -fee, description: "fee" },
    { party: SYSTEM, book: "fees", type: "fee", amount: fee, description: "fee" }
  ]
  const extra = (type: "fine" | "interest" | "discount" | "abatement", amount: number, description: string) => {
    if (amount !== 0) {
      postings.push(
        { party: MERCHANT, book: "pending", type, amount, description },
        { party: SYSTEM, book: other, type, amount: -amount, description }
      )
    }
  }
  extra("fine", c.fine, "fine (multa)")
  extra("interest", c.interest, "interest (juros)")
  extra("discount", -c.discount, "discount (desconto)")
  extra("abatement", -c.abatement, "abatement (abatimento)")
  const receivables: NewReceivable[] = []
  for (const share of shares) {
    postings.push(
      { party: MERCHANT, book: "pending", type: "split", amount: -share.amount, description: "split to subaccount" },
      { party: share.party, book: "pending", type: "split", amount: share.amount, description: "split" }
    )
    cut(share.amount, n).forEach((amount, i) =>
      receivables.push({ party: share.party, balance: "pending", installment: i + 1, amount, availableAt: at(i + 1) })
    )
  }
  if (reserve > 0) {
    postings.push(
      { party: MERCHANT, book: "pending", type: "reserve", amount: -reserve, description: "rolling reserve" },
      { party: MERCHANT, book: "reserved", type: "reserve", amount: reserve, description: "rolling reserve" }
    )
    receivables.push({
      party: MERCHANT,
      balance: "reserved",
      installment: 0,
      amount: reserve,
      availableAt: availableAt(input.paidAt, schedule.reserveDays)
    })
  }
  cut(net - reserve, n).forEach((amount, i) =>
    receivables.push({ party: MERCHANT, balance: "pending", installment: i + 1, amount, availableAt: at(i + 1) })
  )
  return { postings, receivables: receivables.filter((r) => r.amount !== 0) }
}

// ---------------------------------------------------------------------------------------------------
// Taking money back (refunds, disputes)

/** Where money of a party can be taken from, in the order it is taken. */
export type Source =
  | {
      readonly kind: "receivable"
      readonly id: string
      readonly balance: "pending" | "reserved"
      readonly amount: number
    }
  | { readonly kind: "available"; readonly amount: number }

export interface Part {
  readonly source: Source
  readonly amount: number
}

/**
 * Takes `need` from the sources in order (the transaction's own pending receivables, then its
 * reserve, then available). Without `allowNegative` a shortfall is reported; with it (disputes) the
 * rest is taken from available, which may go negative.
 */
export const take = (
  need: number,
  sources: ReadonlyArray<Source>,
  allowNegative: boolean
): { readonly parts: ReadonlyArray<Part>; readonly shortfall: number } => {
  const parts: Part[] = []
  let left = need
  for (const source of sources) {
    if (left <= 0) break
    const amount = Math.min(left, Math.max(0, source.amount))
    if (amount > 0) parts.push({ source, amount })
    left -= amount
  }
  if (left > 0 && allowNegative) {
    const available = sources.find((s) => s.kind === "available") ?? { kind: "available" as const, amount: 0 }
    const existing = parts.findIndex((p) => p.source.kind === "available")
    if (existing >= 0) parts[existing] = { source: available, amount: parts[existing]!.amount + left }
    else parts.push({ source: available, amount: left })
    left = 0
  }
  return { parts, shortfall: Math.max(0, left) }
}

export const bookOf = (source: Source): Balance => (source.kind === "available" ? "available" : source.balance)

export interface RefundShares {
  /** What each recipient gives back, and the merchant's part of the refund before the fee returned. */
  readonly recipients: ReadonlyArray<Share>
  readonly merchant: number
  /** The fee returned by this refund. */
  readonly feeDelta: number
}

/** What the refunds of a sale have taken so far, as its books say (their entries net of their reversals). */
export interface RefundsTaken {
  /** What each recipient has given back. */
  readonly recipients: ReadonlyMap<Party, number>
  /** The fee returned. */
  readonly fee: number
}

/** Each recipient's cumulative part of `part` of the sale (a recipient named twice, its shares' parts summed). */
const owed = (shares: ReadonlyArray<Share>, part: number, amountTotal: number): ReadonlyMap<Party, number> => {
  const parts = new Map<Party, number>()
  for (const s of shares) parts.set(s.party, (parts.get(s.party) ?? 0) + proportional(part, s.amount, amountTotal))
  return parts
}

/** What refunds of `before` took when none of the sale's refunds failed: the cumulative rule at `before`. */
export const takenBefore = (
  input: { readonly amountTotal: number; readonly fee: number; readonly shares: ReadonlyArray<Share> },
  before: number
): RefundsTaken => ({
  recipients: owed(input.shares, before, input.amountTotal),
  fee: feeReturned(input.fee, before, input.amountTotal)
})

/**
 * Who pays a refund of `amount` after `before` was already refunded or is being refunded (CONTRACT-v1 §7,
 * §8): each recipient floor(after × share / amount_total), and the fee round_half_up(fee × after /
 * amount_total), less what the books say the sale's refunds already took (`taken`). Computed on cumulative
 * totals so that a sale refunded in pieces unwinds exactly as one refunded at once; measured against the
 * books, not against `before`, so that a refund that failed while another was in flight (its entry reversed
 * exactly, after the other was computed) leaves no centavo over or short for the next one to meet: a full
 * refund always ends every party at its whole share (docs/ledger.md "Refunds"). Never negative: a party
 * ahead by a centavo gives nothing until the cumulative figure reaches it.
 *
 * Nor does the merchant ever give back more than the sale left it (its whole share less the fee): with
 * every recipient rounded down, and the fee returned so far rounded down too, a piece could put up to one
 * centavo per recipient, and one of fee, above it, and a merchant holding exactly what the sale gave it
 * would be refused a refund the sale as a whole could pay (CONTRACT-v1 §7 "A sale can always be refunded
 * in full from its own money"). Those centavos are the recipients' own, so they give them now, the one
 * furthest from its whole share first (docs/ledger.md "Split").
 */
export const refundShares = (
  input: { readonly amountTotal: number; readonly fee: number; readonly shares: ReadonlyArray<Share> },
  before: number,
  amount: number,
  taken: RefundsTaken = takenBefore(input, before)
): RefundShares => {
  const after = before + amount
  const whole = owed(input.shares, input.amountTotal, input.amountTotal)
  const parts = new Map(
    [...owed(input.shares, after, input.amountTotal)].map(([party, due]) => [
      party,
      Math.max(0, due - (taken.recipients.get(party) ?? 0))
    ])
  )
  const room = (party: Party) => (whole.get(party) ?? 0) - (taken.recipients.get(party) ?? 0) - (parts.get(party) ?? 0)
  const merchantWhole = input.amountTotal - sum([...whole.values()])
  // The merchant pays its part less the fee returned with it: the fee not yet returned (rounded half up on
  // the running total, so it may round down while every recipient does too) counts against what it holds.
  const feeAfter = feeReturned(input.fee, after, input.amountTotal)
  let over =
    after - sum([...taken.recipients.values()]) - sum([...parts.values()]) - merchantWhole + (input.fee - feeAfter)
  for (const party of [...parts.keys()].sort((a, b) => room(b) - room(a))) {
    if (over <= 0) break
    const more = Math.min(over, Math.max(0, room(party)))
    parts.set(party, parts.get(party)! + more)
    over -= more
  }
  const recipients = [...parts].map(([party, part]) => ({ party, amount: part }))
  const merchant = amount - sum(recipients.map((r) => r.amount))
  const feeDelta = Math.max(0, feeAfter - taken.fee)
  return { recipients, merchant, feeDelta }
}

/**
 * A dispute holds exactly its amount (CONTRACT-v1 §7: amount_total − refunded_amount): when the
 * recipients' cumulative figures would together ask more of it than there is (the merchant's part below
 * zero, a credit a hold cannot be), they give what there is, the one furthest ahead of its share last.
 */
const holdingExactly = (amount: number, recipients: ReadonlyArray<Share>): ReadonlyArray<Share> => {
  let over = sum(recipients.map((r) => r.amount)) - amount
  const held = recipients.map((r) => ({ ...r }))
  for (let i = held.length - 1; i >= 0 && over > 0; i--) {
    const less = Math.min(over, held[i]!.amount)
    held[i] = { ...held[i]!, amount: held[i]!.amount - less }
    over -= less
  }
  return [{ party: MERCHANT, amount: amount - sum(held.map((r) => r.amount)) }, ...held]
}

/**
 * What each party holds of a disputed `amount` after `refunded` went back or is going back (same
 * proportions as a refund, measured against what the books say the refunds took: `refundShares`), never
 * more than `amount` in all.
 */
export const disputeShares = (
  input: { readonly amountTotal: number; readonly shares: ReadonlyArray<Share> },
  refunded: number,
  amount: number,
  taken?: RefundsTaken
): ReadonlyArray<Share> =>
  holdingExactly(amount, refundShares({ ...input, fee: 0 }, refunded, amount, taken).recipients)

/**
 * What a dispute holds of a refund that failed while it was open (docs/money.md "Refunds and disputes"):
 * exactly what that refund had taken from each recipient (its entry's `refund` postings), the merchant the
 * rest of its `amount` — as if it had never been asked.
 */
export const failedRefundShares = (amount: number, refundPostings: ReadonlyArray<Posting>): ReadonlyArray<Share> => {
  const recipients = new Map<Party, number>()
  for (const p of refundPostings) {
    if (p.type !== "refund" || p.party === MERCHANT || p.party === SYSTEM) continue
    recipients.set(p.party, (recipients.get(p.party) ?? 0) - p.amount)
  }
  return holdingExactly(
    amount,
    [...recipients].map(([party, value]) => ({ party, amount: Math.max(0, value) }))
  )
}
