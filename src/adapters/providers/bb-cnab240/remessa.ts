import type { ChargeTerms } from "../../../domain/chargeTerms.ts"
import {
  BATCH_HEADER,
  BATCH_TRAILER,
  cnabDate,
  FILE_HEADER,
  FILE_TRAILER,
  SEGMENT_P,
  SEGMENT_Q,
  SEGMENT_R,
  SEGMENT_Y03,
  writeRecord
} from "./layout.ts"
import type { Agreement, BankProfile } from "./profile.ts"
import { addCalendarDays } from "../../../domain/calendar.ts"
import { isoInSaoPaulo } from "../../../domain/time.ts"

/** A title to register: one boleto. */
export interface RemessaTitle {
  readonly transactionId: string
  /** The bank's sequence for its nosso número. */
  readonly sequence: number
  readonly amount: number
  readonly dueDate: string
  readonly issuedOn: string
  readonly payerName: string
  readonly payerDocument: string
  readonly terms?: ChargeTerms | undefined
  /** Days after the due date the bank still receives it (0: not after the due date). */
  readonly writeOffDays: number
  /** Bolepix: the DICT key and the txid of the cobv (segment Y-03). */
  readonly pix?: { readonly keyType: 1 | 2 | 3 | 4 | 5; readonly key: string; readonly txid: string } | undefined
}

const MOVEMENT_REGISTER = "01"

/**
 * The Y-03 code of a DICT key's type, read from its form as the DICT writes each (BCB's Manual de Padrões
 * para Iniciação do Pix): 1 CPF (11 digits), 2 CNPJ (14 characters), 3 phone (+55…), 4 e-mail, 5 random (EVP).
 */
export const dictKeyType = (key: string): 1 | 2 | 3 | 4 | 5 =>
  /^\d{11}$/.test(key)
    ? 1
    : /^[0-9A-Z]{12}\d{2}$/.test(key)
      ? 2
      : /^\+\d{12,13}$/.test(key)
        ? 3
        : key.includes("@")
          ? 4
          : 5

/**
 * Our transaction id in the 25 characters of "uso da empresa" (P 196–220, back in T 106–130): its 128
 * bits in base 36 fit exactly (36^25 > 2^128).
 */
export const companyUseOf = (transactionId: string): string =>
  BigInt(`0x${transactionId.replace(/-/g, "")}`)
    .toString(36)
    .toUpperCase()
    .padStart(25, "0")

/** A title left out of a remessa: its records could not be written, and why. */
export interface RefusedTitle {
  readonly title: RemessaTitle
  readonly reason: string
}

/**
 * One remessa file (CRLF lines): file header, one batch of segments P, Q, R (and Y-03 for bolepix) per
 * title, batch trailer, file trailer. `fileNumber` is the NSA, one per cycle. A title whose records cannot
 * be written (a value its field cannot hold) is left out of the file and handed to `refused` with the
 * reason: the other titles, of every merchant, still reach the bank (docs/providers.md "Boleto: banks by
 * CNAB 240").
 */
export const buildRemessa = (
  profile: BankProfile,
  agreement: Agreement,
  fileNumber: number,
  generatedAt: Date,
  titles: ReadonlyArray<RemessaTitle>,
  refused: (refusal: RefusedTitle) => void = () => {}
): string => {
  // The bank reads the file's date and time as Brazil's (the file header's "data/hora de geração", the batch
  // header's "data de gravação"): São Paulo's, or a file cut after 21:00 would be dated tomorrow.
  const local = isoInSaoPaulo(generatedAt)
  const day = local.slice(0, 10)
  const company = {
    bank: profile.bankCode,
    companyDocumentType: agreement.companyDocument.length === 11 ? 1 : 2,
    companyDocument: agreement.companyDocument,
    agreement: profile.agreementField(agreement),
    agency: agreement.agency,
    agencyDigit: agreement.agencyDigit,
    account: agreement.account,
    accountDigit: agreement.accountDigit,
    companyName: agreement.companyName
  }
  const lines: string[] = [
    writeRecord(FILE_HEADER, {
      ...company,
      bankName: profile.bankName,
      direction: 1,
      generatedOn: cnabDate(day),
      generatedAt: local.slice(11, 19).replace(/:/g, ""),
      fileNumber,
      layoutVersion: profile.fileLayoutVersion,
      density: profile.density
    }),
    writeRecord(BATCH_HEADER, {
      ...company,
      batch: 1,
      operation: "R",
      layoutVersion: profile.batchLayoutVersion,
      fileNumber,
      recordedOn: cnabDate(day),
      creditOn: "00000000"
    })
  ]
  let sequence = 0
  const detail = { bank: profile.bankCode, batch: 1, movement: MOVEMENT_REGISTER }
  for (const t of titles) {
    const records = titleRecords(profile, agreement, detail, sequence, t)
    if (typeof records === "string") {
      refused({ title: t, reason: records })
      continue
    }
    lines.push(...records)
    sequence += records.length
  }
  lines.push(writeRecord(BATCH_TRAILER, { bank: profile.bankCode, batch: 1, records: sequence + 2 }))
  lines.push(writeRecord(FILE_TRAILER, { bank: profile.bankCode, batches: 1, records: lines.length + 1, accounts: 0 }))
  return `${lines.join("\r\n")}\r\n`
}

/**
 * A title's segments, numbered from `after` + 1 in the batch, or why one of them cannot be written: the
 * title alone is then left out, and the next one takes its sequence numbers.
 */
const titleRecords = (
  profile: BankProfile,
  agreement: Agreement,
  detail: { readonly bank: string; readonly batch: number; readonly movement: string },
  after: number,
  t: RemessaTitle
): ReadonlyArray<string> | string => {
  let sequence = after
  const lines: string[] = []
  try {
    const terms = t.terms ?? {}
    const discounts = terms.discounts ?? []
    const interest = terms.interest
    const [d1, d2, d3] = discounts
    const discountCode = (d: (typeof discounts)[number] | undefined) =>
      d === undefined ? 0 : d.kind === "fixed" ? 1 : 2
    lines.push(
      writeRecord(SEGMENT_P, {
        ...detail,
        sequence: ++sequence,
        agency: agreement.agency,
        agencyDigit: agreement.agencyDigit,
        account: agreement.account,
        accountDigit: agreement.accountDigit,
        ourNumber: profile.ourNumber(agreement, t.sequence),
        wallet: profile.walletCode,
        registration: 1,
        documentType: "1",
        issuer: 2,
        distribution: "2",
        documentNumber: t.transactionId.replace(/-/g, "").slice(0, 15),
        dueDate: cnabDate(t.dueDate),
        amount: t.amount,
        kind: profile.kind,
        accepted: "N",
        issuedOn: cnabDate(t.issuedOn),
        // FEBRABAN has no "percent per day": it goes as the monthly rate 30 times it, which the bank applies pro
        // rata die (a month of 30 calendar days) as our rule does, so it charges what the rule asks. As the amount
        // a day it is, rounded to the centavo before the days multiply it, it charged up to half a centavo a day
        // more or less (docs/boleto.md "Rounding").
        interestCode: interest === undefined ? 3 : interest.kind === "fixed_per_day" ? 1 : 2,
        interestFrom: interest === undefined ? "00000000" : cnabDate(addCalendarDays(t.dueDate, 1)),
        // Centavos a day, or a monthly rate with 2 decimals (basis points).
        interestValue:
          interest === undefined ? 0 : interest.kind === "percentage_per_day" ? interest.value * 30 : interest.value,
        discount1Code: discountCode(d1),
        discount1Until: cnabDate(d1?.until),
        discount1Value: d1?.value ?? 0,
        // Segment P carries the abatement as an amount: a percentage goes as what it is on this title.
        abatement:
          terms.abatement === undefined
            ? 0
            : terms.abatement.kind === "fixed"
              ? terms.abatement.value
              : Math.floor((t.amount * terms.abatement.value + 5_000) / 10_000),
        companyUse: companyUseOf(t.transactionId),
        protestCode: 3,
        protestDays: 0,
        writeOffCode: 1,
        writeOffDays: String(t.writeOffDays).padStart(3, "0"),
        contract: 0
      }),
      writeRecord(SEGMENT_Q, {
        ...detail,
        sequence: ++sequence,
        payerDocumentType: t.payerDocument.length === 11 ? 1 : 2,
        payerDocument: t.payerDocument,
        payerName: t.payerName
      }),
      writeRecord(SEGMENT_R, {
        ...detail,
        sequence: ++sequence,
        discount2Code: discountCode(d2),
        discount2Until: cnabDate(d2?.until),
        discount2Value: d2?.value ?? 0,
        discount3Code: discountCode(d3),
        discount3Until: cnabDate(d3?.until),
        discount3Value: d3?.value ?? 0,
        fineCode: terms.fine === undefined ? "0" : terms.fine.kind === "fixed" ? "1" : "2",
        fineFrom: terms.fine === undefined ? "00000000" : cnabDate(addCalendarDays(t.dueDate, 1)),
        fineValue: terms.fine?.value ?? 0
      })
    )
    if (t.pix !== undefined) {
      lines.push(
        writeRecord(SEGMENT_Y03, {
          ...detail,
          sequence: ++sequence,
          keyType: t.pix.keyType,
          key: t.pix.key,
          txid: t.pix.txid
        })
      )
    }
  } catch (e) {
    // The writer's RangeError (a value its field cannot hold) or anything else this one title's values cause;
    // the field named, not the value, which may be the payer's document (the reason is logged).
    const reason = e instanceof Error ? e.message : String(e)
    return reason.replace(/ does not fit: [\s\S]*$/, " does not fit")
  }
  return lines
}
