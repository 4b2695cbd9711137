/**
 * FEBRABAN CNAB 240 "cobrança" records as tables of fields (docs/providers.md "Boleto: banks by CNAB
 * 240"): each field its 1-based positions as the layout prints them, its picture — `9` numeric
 * (right-aligned, zero-filled) or `X` alphanumeric (left-aligned, blank-filled, upper case, no
 * accents) — and, for constants, its value. A record is 240 characters; the tables are checked to
 * cover 1–240 without gap or overlap (layout.test.ts). The generic layout (FEBRABAN 240 v10.x); a
 * bank's variations are its profile (bb.ts), data over these tables.
 */

export type Picture = "9" | "X"

export interface Field {
  readonly name: string
  readonly from: number
  readonly to: number
  readonly picture: Picture
  /** A constant the writer puts and the reader checks. */
  readonly value?: string
  /**
   * An identifier another system compares byte for byte (Y-03's DICT key and txid, which the API Pix reads
   * case-sensitively): written as given, never upper-cased or cut; a value that is not printable ASCII or
   * does not fit is refused.
   */
  readonly exact?: true
  /**
   * A CPF or CNPJ ("número de inscrição"): a `9` field that also takes the letters of an alphanumeric CNPJ
   * (IN RFB 2.229/2024, issued since July 2026). FEBRABAN's adaptation keeps the field where it was and as it
   * was written — right-aligned, zero-filled — and lets its characters be A–Z as well as digits: the 14
   * characters of a CNPJ as the Receita writes it (docs/providers.md "Boleto: banks by CNAB 240").
   */
  readonly inscription?: true
}

const f = (name: string, from: number, to: number, picture: Picture, value?: string): Field =>
  value === undefined ? { name, from, to, picture } : { name, from, to, picture, value }
const exact = (name: string, from: number, to: number): Field => ({ name, from, to, picture: "X", exact: true })
const inscription = (name: string, from: number, to: number): Field => ({
  name,
  from,
  to,
  picture: "9",
  inscription: true
})

/** Common to every record: bank, batch, record type. */
const control = (type: string, batch?: string): ReadonlyArray<Field> => [
  f("bank", 1, 3, "9"),
  batch === undefined ? f("batch", 4, 7, "9") : f("batch", 4, 7, "9", batch),
  f("recordType", 8, 8, "9", type)
]

/** Common to every detail segment. */
const detail = (segment: string): ReadonlyArray<Field> => [
  ...control("3"),
  f("sequence", 9, 13, "9"),
  f("segment", 14, 14, "X", segment),
  f("febraban1", 15, 15, "X"),
  f("movement", 16, 17, "9")
]

const account: ReadonlyArray<Field> = [
  f("agency", 18, 22, "9"),
  f("agencyDigit", 23, 23, "X"),
  f("account", 24, 35, "9"),
  f("accountDigit", 36, 36, "X"),
  f("agencyAccountDigit", 37, 37, "X")
]

export const FILE_HEADER: ReadonlyArray<Field> = [
  ...control("0", "0000"),
  f("febraban1", 9, 17, "X"),
  f("companyDocumentType", 18, 18, "9"),
  inscription("companyDocument", 19, 32),
  f("agreement", 33, 52, "X"),
  f("agency", 53, 57, "9"),
  f("agencyDigit", 58, 58, "X"),
  f("account", 59, 70, "9"),
  f("accountDigit", 71, 71, "X"),
  f("agencyAccountDigit", 72, 72, "X"),
  f("companyName", 73, 102, "X"),
  f("bankName", 103, 132, "X"),
  f("febraban2", 133, 142, "X"),
  /** 1 remessa, 2 retorno. */
  f("direction", 143, 143, "9"),
  f("generatedOn", 144, 151, "9"),
  f("generatedAt", 152, 157, "9"),
  /** NSA: the file's number in the sequence, one per cycle. */
  f("fileNumber", 158, 163, "9"),
  f("layoutVersion", 164, 166, "9"),
  f("density", 167, 171, "9"),
  f("bankReserved", 172, 191, "X"),
  f("companyReserved", 192, 211, "X"),
  f("febraban3", 212, 240, "X")
]

export const BATCH_HEADER: ReadonlyArray<Field> = [
  ...control("1"),
  /** R remessa, T retorno. */
  f("operation", 9, 9, "X"),
  f("service", 10, 11, "9", "01"),
  f("febraban1", 12, 13, "X"),
  f("layoutVersion", 14, 16, "9"),
  f("febraban2", 17, 17, "X"),
  f("companyDocumentType", 18, 18, "9"),
  inscription("companyDocument", 19, 33),
  f("agreement", 34, 53, "X"),
  f("agency", 54, 58, "9"),
  f("agencyDigit", 59, 59, "X"),
  f("account", 60, 71, "9"),
  f("accountDigit", 72, 72, "X"),
  f("agencyAccountDigit", 73, 73, "X"),
  f("companyName", 74, 103, "X"),
  f("message1", 104, 143, "X"),
  f("message2", 144, 183, "X"),
  f("fileNumber", 184, 191, "9"),
  f("recordedOn", 192, 199, "9"),
  f("creditOn", 200, 207, "9"),
  f("febraban3", 208, 240, "X")
]

/** Segment P (remessa): the title — our number, due date, amount, interest and the first discount. */
export const SEGMENT_P: ReadonlyArray<Field> = [
  ...detail("P"),
  ...account,
  f("ourNumber", 38, 57, "X"),
  f("wallet", 58, 58, "9"),
  f("registration", 59, 59, "9"),
  f("documentType", 60, 60, "X"),
  f("issuer", 61, 61, "9"),
  f("distribution", 62, 62, "X"),
  f("documentNumber", 63, 77, "X"),
  f("dueDate", 78, 85, "9"),
  f("amount", 86, 100, "9"),
  f("collectingAgency", 101, 105, "9"),
  f("collectingAgencyDigit", 106, 106, "X"),
  f("kind", 107, 108, "9"),
  f("accepted", 109, 109, "X"),
  f("issuedOn", 110, 117, "9"),
  /** 1 amount per day, 2 monthly rate, 3 exempt. */
  f("interestCode", 118, 118, "9"),
  f("interestFrom", 119, 126, "9"),
  f("interestValue", 127, 141, "9"),
  /** 0 none, 1 fixed until the date, 2 percentage until the date. */
  f("discount1Code", 142, 142, "9"),
  f("discount1Until", 143, 150, "9"),
  f("discount1Value", 151, 165, "9"),
  f("iof", 166, 180, "9"),
  f("abatement", 181, 195, "9"),
  /** Ours: the transaction id, as the retorno's T 106–130 gives it back. */
  f("companyUse", 196, 220, "X"),
  f("protestCode", 221, 221, "9"),
  f("protestDays", 222, 223, "9"),
  f("writeOffCode", 224, 224, "9"),
  f("writeOffDays", 225, 227, "X"),
  f("currency", 228, 229, "9", "09"),
  f("contract", 230, 239, "9"),
  f("free", 240, 240, "X")
]

/** Segment Q (remessa): the payer, and the sacador/avalista (docs/boleto.md). */
export const SEGMENT_Q: ReadonlyArray<Field> = [
  ...detail("Q"),
  f("payerDocumentType", 18, 18, "9"),
  inscription("payerDocument", 19, 33),
  f("payerName", 34, 73, "X"),
  f("payerAddress", 74, 113, "X"),
  f("payerNeighborhood", 114, 128, "X"),
  f("payerZip", 129, 133, "9"),
  f("payerZipSuffix", 134, 136, "9"),
  f("payerCity", 137, 151, "X"),
  f("payerState", 152, 153, "X"),
  f("guarantorDocumentType", 154, 154, "9"),
  inscription("guarantorDocument", 155, 169),
  f("guarantorName", 170, 209, "X"),
  f("correspondentBank", 210, 212, "9"),
  f("correspondentOurNumber", 213, 232, "X"),
  f("febraban2", 233, 240, "X")
]

/** Segment R (remessa): discounts 2 and 3, and the fine. */
export const SEGMENT_R: ReadonlyArray<Field> = [
  ...detail("R"),
  f("discount2Code", 18, 18, "9"),
  f("discount2Until", 19, 26, "9"),
  f("discount2Value", 27, 41, "9"),
  f("discount3Code", 42, 42, "9"),
  f("discount3Until", 43, 50, "9"),
  f("discount3Value", 51, 65, "9"),
  /** 0 none, 1 fixed, 2 percentage. */
  f("fineCode", 66, 66, "X"),
  f("fineFrom", 67, 74, "9"),
  f("fineValue", 75, 89, "9"),
  f("payerInformation", 90, 99, "X"),
  f("message3", 100, 139, "X"),
  f("message4", 140, 179, "X"),
  f("febraban2", 180, 199, "X"),
  f("payerOccurrence", 200, 207, "9"),
  f("debitBank", 208, 210, "9"),
  f("debitAgency", 211, 215, "9"),
  f("debitAgencyDigit", 216, 216, "X"),
  f("debitAccount", 217, 228, "9"),
  f("debitAccountDigit", 229, 229, "X"),
  f("debitAgencyAccountDigit", 230, 230, "X"),
  f("debitNotice", 231, 231, "9"),
  f("febraban3", 232, 240, "X")
]

/** Segment Y-03 (remessa, bolepix): the DICT key and the txid of the due-date PIX charge. */
export const SEGMENT_Y03: ReadonlyArray<Field> = [
  ...detail("Y"),
  f("optional", 18, 19, "9", "03"),
  f("febraban2", 20, 27, "X"),
  /** 1 CPF, 2 CNPJ, 3 phone, 4 e-mail, 5 random key. */
  f("keyType", 28, 28, "9"),
  exact("key", 29, 105),
  exact("txid", 106, 140),
  f("febraban3", 141, 240, "X")
]

/** Segment T (retorno): the title's occurrence, the bank's fee and the reasons. */
export const SEGMENT_T: ReadonlyArray<Field> = [
  ...detail("T"),
  ...account,
  f("ourNumber", 38, 57, "X"),
  f("wallet", 58, 58, "9"),
  f("documentNumber", 59, 73, "X"),
  f("dueDate", 74, 81, "9"),
  f("amount", 82, 96, "9"),
  f("collectingBank", 97, 99, "9"),
  f("collectingAgency", 100, 104, "9"),
  f("collectingAgencyDigit", 105, 105, "X"),
  f("companyUse", 106, 130, "X"),
  f("currency", 131, 132, "9"),
  f("payerDocumentType", 133, 133, "9"),
  inscription("payerDocument", 134, 148),
  f("payerName", 149, 188, "X"),
  f("contract", 189, 198, "9"),
  f("fee", 199, 213, "9"),
  /** Up to five 2-character codes: rejection reasons (03) or the liquidation channel (06, 17). */
  f("reasons", 214, 223, "X"),
  f("febraban2", 224, 240, "X")
]

/** Segment U (retorno): what was paid, in parts, and the dates. */
export const SEGMENT_U: ReadonlyArray<Field> = [
  ...detail("U"),
  f("charges", 18, 32, "9"),
  f("discount", 33, 47, "9"),
  f("abatement", 48, 62, "9"),
  f("iof", 63, 77, "9"),
  f("paid", 78, 92, "9"),
  f("credited", 93, 107, "9"),
  f("otherExpenses", 108, 122, "9"),
  f("otherCredits", 123, 137, "9"),
  f("occurredOn", 138, 145, "9"),
  f("creditOn", 146, 153, "9"),
  f("payerOccurrence", 154, 157, "X"),
  f("payerOccurrenceOn", 158, 165, "9"),
  f("payerOccurrenceValue", 166, 180, "9"),
  f("payerOccurrenceText", 181, 210, "X"),
  f("correspondentBank", 211, 213, "9"),
  f("correspondentOurNumber", 214, 233, "X"),
  f("febraban2", 234, 240, "X")
]

export const BATCH_TRAILER: ReadonlyArray<Field> = [
  ...control("5"),
  f("febraban1", 9, 17, "X"),
  /** Records in the batch, its header and trailer included. */
  f("records", 18, 23, "9"),
  f("rest", 24, 240, "X")
]

export const FILE_TRAILER: ReadonlyArray<Field> = [
  ...control("9", "9999"),
  f("febraban1", 9, 17, "X"),
  f("batches", 18, 23, "9"),
  f("records", 24, 29, "9"),
  f("accounts", 30, 35, "9"),
  f("febraban2", 36, 240, "X")
]

export const RECORD_LENGTH = 240

/** Strips accents and anything a bank's EBCDIC-minded reader refuses; upper case. */
const plain = (s: string) =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]/g, " ")
    .toUpperCase()

/** One record from its fields' values: numbers zero-filled right-aligned, text blank-filled left. */
export const writeRecord = (layout: ReadonlyArray<Field>, values: Readonly<Record<string, string | number>>) => {
  let out = ""
  for (const field of layout) {
    const width = field.to - field.from + 1
    const raw = field.value ?? values[field.name]
    if (field.picture === "9") {
      const digits = raw === undefined ? "" : String(raw)
      if (!(field.inscription ? /^[0-9A-Z]*$/ : /^\d*$/).test(digits) || digits.length > width) {
        throw new RangeError(`${field.name} (${field.from}-${field.to}) does not fit: ${digits}`)
      }
      out += digits.padStart(width, "0")
    } else if (field.exact) {
      const text = raw === undefined ? "" : String(raw)
      if (!/^[\x21-\x7e]*$/.test(text) || text.length > width) {
        throw new RangeError(`${field.name} (${field.from}-${field.to}) cannot be written as it is: ${text}`)
      }
      out += text.padEnd(width, " ")
    } else {
      const text = raw === undefined ? "" : plain(String(raw))
      out += text.slice(0, width).padEnd(width, " ")
    }
  }
  if (out.length !== RECORD_LENGTH) throw new RangeError(`record of ${out.length} characters`)
  return out
}

/** A record's fields by name, or the first field that breaks its picture or constant. */
export const readRecord = (
  layout: ReadonlyArray<Field>,
  line: string
):
  | { readonly ok: true; readonly fields: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly error: string } => {
  if (line.length !== RECORD_LENGTH) return { ok: false, error: `${line.length} characters, not ${RECORD_LENGTH}` }
  const fields: Record<string, string> = {}
  for (const field of layout) {
    const text = line.slice(field.from - 1, field.to)
    if (field.picture === "9" && !(field.inscription ? /^[0-9A-Z]+$/ : /^\d+$/).test(text)) {
      const what = field.inscription ? "a CPF or CNPJ" : "numeric"
      return { ok: false, error: `${field.name} (${field.from}-${field.to}) is not ${what}: "${text}"` }
    }
    if (field.value !== undefined && text !== field.value) {
      return { ok: false, error: `${field.name} (${field.from}-${field.to}) is "${text}", not "${field.value}"` }
    }
    fields[field.name] = field.picture === "X" ? text.trimEnd() : text
  }
  return { ok: true, fields }
}

/**
 * Whether eight digits DDMMAAAA are a date the reader can take: 00000000 (no date), or a day the Gregorian
 * calendar has — read back from the calendar as written (a round trip), so 31/04, 29/02 out of a leap year,
 * day or month 00, month 13 and year 0000 (there is none) are not. A `9` field only checks its digits.
 */
export const isCnabDate = (ddmmaaaa: string): boolean => {
  if (!/^\d{8}$/.test(ddmmaaaa)) return false
  if (ddmmaaaa === "00000000") return true
  const day = Number(ddmmaaaa.slice(0, 2))
  const month = Number(ddmmaaaa.slice(2, 4))
  const year = Number(ddmmaaaa.slice(4, 8))
  if (year === 0) return false
  // setUTCFullYear, not Date.UTC: Date.UTC takes years 0–99 as 1900–1999.
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** DDMMAAAA ⇄ YYYY-MM-DD; 00000000 is no date. A date `isCnabDate` refuses is a RangeError, never passed on. */
export const cnabDate = (date: string | null | undefined) =>
  date ? `${date.slice(8, 10)}${date.slice(5, 7)}${date.slice(0, 4)}` : "00000000"
export const isoDate = (ddmmaaaa: string): string | null => {
  if (!isCnabDate(ddmmaaaa)) throw new RangeError(`"${ddmmaaaa}" is not a date (DDMMAAAA)`)
  return ddmmaaaa === "00000000" ? null : `${ddmmaaaa.slice(4, 8)}-${ddmmaaaa.slice(2, 4)}-${ddmmaaaa.slice(0, 2)}`
}
