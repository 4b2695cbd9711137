import { daysBetween } from "../../../src/domain/calendar.ts"
import { amountDue } from "../../../src/domain/chargeTerms.ts"
import {
  BATCH_HEADER,
  BATCH_TRAILER,
  cnabDate,
  FILE_HEADER,
  FILE_TRAILER,
  isoDate,
  readRecord,
  SEGMENT_P,
  SEGMENT_R,
  SEGMENT_T,
  SEGMENT_U,
  writeRecord
} from "../../../src/adapters/providers/bb-cnab240/layout.ts"

/** What the fake bank does with one title of the remessa. */
export interface Outcome {
  /** 02, 03, 06, 09, 17, 28. */
  readonly movement: string
  /** Paid (06, 17): on which day; the amount is what the title's terms ask that day unless `paid`. */
  readonly paidOn?: string
  readonly paid?: number
  /** The bank's fee on this occurrence (T 199–213), centavos. */
  readonly fee?: number
  /** Paid: the day the bank credits the amount (U 146–153); by default the day paid. */
  readonly creditOn?: string
  /** Rejection reasons (03) or the liquidation channel (06, 17), 2 characters each. */
  readonly reasons?: ReadonlyArray<string>
}

export interface RemessaTitleSeen {
  readonly index: number
  readonly ourNumber: string
  readonly companyUse: string
  readonly dueDate: string
  readonly amount: number
}

/**
 * A bank in a function: reads our remessa (segments P and R give it the title and the terms it
 * computes with) and answers a retorno with the occurrence `outcome` picks for each title.
 */
export const answerRemessa = (
  remessa: string,
  fileNumber: number,
  outcome: (title: RemessaTitleSeen) => Outcome
): string => {
  const lines = remessa.split(/\r?\n/).filter((l) => l.length > 0)
  const header = readRecord(FILE_HEADER, lines[0]!)
  if (!header.ok) throw new Error(`remessa line 1: ${header.error}`)
  const h = header.fields
  const out: string[] = [writeRecord(FILE_HEADER, { ...h, direction: 2, fileNumber })]
  const batch = readRecord(BATCH_HEADER, lines[1]!)
  if (!batch.ok) throw new Error(`remessa line 2: ${batch.error}`)
  out.push(writeRecord(BATCH_HEADER, { ...batch.fields, operation: "T", fileNumber }))
  let sequence = 0
  let index = 0
  for (let i = 2; i < lines.length; i++) {
    const p = readRecord(SEGMENT_P, lines[i]!)
    if (!p.ok) continue
    const P = p.fields
    const r = readRecord(SEGMENT_R, lines[i + 2] ?? "")
    const R = r.ok ? r.fields : {}
    const dueDate = isoDate(P["dueDate"]!)!
    const amount = Number(P["amount"])
    const seen = { index: index++, ourNumber: P["ourNumber"]!, companyUse: P["companyUse"]!, dueDate, amount }
    const o = outcome(seen)
    let charges = 0
    let discount = 0
    let abatement = 0
    let paid = 0
    if (o.movement === "06" || o.movement === "17") {
      // The bank computes with what the remessa registered: fine (R), interest, discount 1 and the abatement
      // (P), discounts 2 and 3 (R). Whether the payment is late is FEBRABAN's rule (a due date on a closed day
      // is paid on the next business day without charges); once late, the fine is owed from its date
      // (R 67–74) and the interest counted for each calendar day from its own (P 119–126), as a bank reads
      // them, not from our rule's due date. The abatement, an amount in the file, always comes off, and the
      // percentages apply to what is left of the title (docs/boleto.md).
      const paidOn = o.paidOn ?? dueDate
      const terms = termsOf(P, R)
      const due = amountDue(amount, dueDate, terms, paidOn)
      const late = due.daysLate > 0
      const fineFrom = isoDate(R["fineFrom"] ?? "00000000")
      const interestFrom = isoDate(P["interestFrom"]!)
      abatement = due.abatement
      const fine = late && fineFrom !== null && paidOn >= fineFrom ? due.fine : 0
      const interest =
        late && terms.interest !== undefined && interestFrom !== null && paidOn >= interestFrom
          ? interestFor(terms.interest, amount - abatement, daysBetween(interestFrom, paidOn) + 1)
          : 0
      charges = fine + interest
      discount = due.discount
      paid = o.paid ?? amount - abatement - discount + fine + interest
    }
    const fee = o.fee ?? 0
    out.push(
      writeRecord(SEGMENT_T, {
        bank: h["bank"]!,
        batch: 1,
        sequence: ++sequence,
        movement: o.movement,
        agency: P["agency"]!,
        agencyDigit: P["agencyDigit"]!,
        account: P["account"]!,
        accountDigit: P["accountDigit"]!,
        ourNumber: seen.ourNumber,
        wallet: P["wallet"]!,
        documentNumber: P["documentNumber"]!,
        dueDate: P["dueDate"]!,
        amount,
        companyUse: seen.companyUse,
        currency: "09",
        fee,
        reasons: (o.reasons ?? []).join("")
      }),
      writeRecord(SEGMENT_U, {
        bank: h["bank"]!,
        batch: 1,
        sequence: ++sequence,
        movement: o.movement,
        charges,
        discount,
        abatement,
        paid,
        credited: Math.max(0, paid - fee),
        occurredOn: cnabDate(o.paidOn ?? dueDate),
        creditOn: paid > 0 ? cnabDate(o.creditOn ?? o.paidOn ?? dueDate) : "00000000"
      })
    )
  }
  out.push(writeRecord(BATCH_TRAILER, { bank: h["bank"]!, batch: 1, records: sequence + 2 }))
  out.push(writeRecord(FILE_TRAILER, { bank: h["bank"]!, batches: 1, records: out.length + 1, accounts: 0 }))
  return `${out.join("\r\n")}\r\n`
}

/**
 * Simple interest for `days` calendar days, rounded half up to the centavo: an amount a day (code 1), or a
 * monthly rate in basis points applied pro rata die over 30 days (code 2), as FEBRABAN's codes say.
 */
const interestFor = (interest: { kind: string; value: number }, amount: number, days: number) => {
  if (interest.kind === "fixed_per_day") return interest.value * days
  const numerator = BigInt(amount) * BigInt(interest.value) * BigInt(days)
  const denominator = 10_000n * 30n
  return Number((2n * numerator + denominator) / (2n * denominator))
}

const termsOf = (P: Readonly<Record<string, string>>, R: Readonly<Record<string, string>>) => {
  const fineCode = R["fineCode"]
  const interestCode = P["interestCode"]
  // Up to three discounts, one per date: the first in P, the second and third in R, each of the kind its code
  // names (1 fixed until the date, 2 a percentage until the date); code 0 is none.
  const discounts = [
    [P["discount1Code"], P["discount1Value"], P["discount1Until"]],
    [R["discount2Code"], R["discount2Value"], R["discount2Until"]],
    [R["discount3Code"], R["discount3Value"], R["discount3Until"]]
  ].flatMap(([code, value, until]) =>
    code === "1" || code === "2"
      ? [
          {
            kind: code === "1" ? ("fixed" as const) : ("percentage" as const),
            value: Number(value),
            until: isoDate(until!)!
          }
        ]
      : []
  )
  const abatement = Number(P["abatement"] ?? "0")
  return {
    ...(fineCode === "1" || fineCode === "2"
      ? {
          fine: { kind: fineCode === "1" ? ("fixed" as const) : ("percentage" as const), value: Number(R["fineValue"]) }
        }
      : {}),
    ...(interestCode === "1" || interestCode === "2"
      ? {
          interest: {
            kind: interestCode === "1" ? ("fixed_per_day" as const) : ("percentage_per_month" as const),
            value: Number(P["interestValue"])
          }
        }
      : {}),
    ...(discounts.length > 0 ? { discounts } : {}),
    ...(abatement > 0 ? { abatement: { kind: "fixed" as const, value: abatement } } : {})
  }
}
