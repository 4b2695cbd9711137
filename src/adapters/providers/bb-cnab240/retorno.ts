import { FILE_HEADER, isCnabDate, isoDate, readRecord, SEGMENT_T, SEGMENT_U } from "./layout.ts"

/** The dates a title is read with (U 138–145, 146–153): the day of the occurrence and of the credit. */
const DATES = SEGMENT_U.filter((f) => f.name === "occurredOn" || f.name === "creditOn")

/** One title's occurrence in a retorno: segment T and its segment U. */
export interface RetornoTitle {
  /** 1-based line of its segment T. */
  readonly line: number
  /** 02 registered, 03 rejected, 06 paid, 09 written off, 17 paid after write-off, 28 fees… */
  readonly movement: string
  readonly ourNumber: string
  /** Our transaction id, from T 106–130 (what segment P's "uso da empresa" carried); "" when unreadable. */
  readonly transactionId: string
  readonly amount: number
  readonly fee: number
  readonly reasons: ReadonlyArray<string>
  readonly charges: number
  readonly discount: number
  readonly abatement: number
  readonly paid: number
  readonly credited: number
  readonly occurredOn: string | null
  readonly creditOn: string | null
}

export interface Retorno {
  readonly bankCode: string
  /** The NSA: ingestion is in sequence. */
  readonly fileNumber: number
  readonly titles: ReadonlyArray<RetornoTitle>
  /** Every line that could not be read, with its number and why: none is dropped silently. */
  readonly rejected: ReadonlyArray<{ readonly line: number; readonly error: string }>
}

/** The transaction id back from its base-36 "uso da empresa" (remessa.ts `companyUseOf`). */
export const transactionIdOf = (companyUse: string): string | null => {
  if (!/^[0-9A-Z]{25}$/.test(companyUse)) return null
  let n = 0n
  for (const c of companyUse) n = n * 36n + BigInt(parseInt(c, 36))
  if (n >= 1n << 128n) return null
  const hex = n.toString(16).padStart(32, "0")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * Reads a retorno: the file header (its NSA), then each T with the U that follows it. Headers,
 * trailers and segments this gateway does not use are read by their record type and passed over; a
 * line that breaks its layout, or whose U carries a date the calendar does not have, is rejected with its
 * number, and the rest of the file is read.
 */
export const parseRetorno = (text: string): Retorno | { readonly error: string } => {
  const lines = text.split(/\r?\n/)
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  const header = readRecord(FILE_HEADER, lines[0] ?? "")
  if (!header.ok) return { error: `line 1: ${header.error}` }
  if (header.fields["direction"] !== "2") return { error: "line 1: not a retorno (position 143 is not 2)" }
  const titles: RetornoTitle[] = []
  const rejected: Array<{ line: number; error: string }> = []
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i]!
    const n = i + 1
    const type = text.slice(7, 8)
    const segment = text.slice(13, 14)
    if (text.length === 240 && (type === "1" || type === "5" || type === "9")) continue
    if (text.length !== 240 || type !== "3") {
      rejected.push({ line: n, error: `not a CNAB 240 record (${text.length} characters, type "${type}")` })
      continue
    }
    if (segment !== "T") {
      if (segment !== "U") rejected.push({ line: n, error: `segment "${segment}" is not expected in a retorno` })
      continue
    }
    const t = readRecord(SEGMENT_T, text)
    if (!t.ok) {
      rejected.push({ line: n, error: t.error })
      if (lines[i + 1]?.slice(13, 14) === "U") {
        rejected.push({ line: n + 1, error: "its segment T was rejected" })
        i++
      }
      continue
    }
    const next = lines[i + 1] ?? ""
    // A T whose U is missing: the next line is another title's (or the trailer), read on its own.
    if (next.length !== 240 || next.slice(7, 8) !== "3" || next.slice(13, 14) !== "U") {
      rejected.push({ line: n, error: "segment T without its segment U on the next line" })
      continue
    }
    const u = readRecord(SEGMENT_U, next)
    if (!u.ok) {
      rejected.push({ line: n + 1, error: `segment U of line ${n}: ${u.error}` })
      i++
      continue
    }
    i++
    const T = t.fields
    const U = u.fields
    // Digits in a date's place that name no day (31/04, day 00…) are the U's error like any other: its title
    // is not read, the rest of the file is.
    const notADate = DATES.find((f) => !isCnabDate(U[f.name]!))
    if (notADate !== undefined) {
      const { name, from, to } = notADate
      rejected.push({
        line: n + 1,
        error: `segment U of line ${n}: ${name} (${from}-${to}) is not a date: "${U[name]}"`
      })
      continue
    }
    const reasons = (T["reasons"] ?? "").match(/.{2}/g)?.filter((r) => r.trim() !== "" && r !== "00") ?? []
    titles.push({
      line: n,
      movement: T["movement"]!,
      ourNumber: T["ourNumber"]!,
      transactionId: transactionIdOf(T["companyUse"] ?? "") ?? "",
      amount: Number(T["amount"]),
      fee: Number(T["fee"]),
      reasons,
      charges: Number(U["charges"]),
      discount: Number(U["discount"]),
      abatement: Number(U["abatement"]),
      paid: Number(U["paid"]),
      credited: Number(U["credited"]),
      occurredOn: isoDate(U["occurredOn"]!),
      creditOn: isoDate(U["creditOn"]!)
    })
  }
  return { bankCode: header.fields["bank"]!, fileNumber: Number(header.fields["fileNumber"]), titles, rejected }
}

/** Paid: 06 liquidação, 17 liquidação após baixa (the title's money arrived either way). */
export const isPaid = (movement: string) => movement === "06" || movement === "17"
