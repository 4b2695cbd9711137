// PIX BR Code, "Manual de Padrões para Iniciação do Pix" (BCB), which profiles
// EMV® QRCPS Merchant-Presented Mode: a flat list of TLV fields, each
// ID (2 digits) + LENGTH (2 digits, 00–99) + VALUE, ending in field 63, a
// CRC16-CCITT-FALSE of everything before its value (including "6304").
// Lengths count characters; every payload we emit is printable ASCII.

/** CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no xorout (EMV QRCPS, adopted by the BCB manual). */
export const crc16CcittFalse = (s: string): string => {
  let crc = 0xffff
  for (const byte of new TextEncoder().encode(s)) {
    crc ^= byte << 8
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc.toString(16).toUpperCase().padStart(4, "0")
}

const tlv = (id: string, value: string): string => {
  if (value.length > 99) throw new RangeError(`BR Code field ${id} longer than 99`)
  return id + String(value.length).padStart(2, "0") + value
}

const PRINTABLE = /^[\x20-\x7E]*$/
const GUI = "br.gov.bcb.pix"

/** Strip accents and anything outside printable ASCII, then cut to `max` (EMV name ≤ 25, city ≤ 15). */
const normalise = (s: string, max: number): string =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7E]/g, "")
    .trim()
    .slice(0, max)
    .trim()

export type BrCodeInput = {
  pixKey?: string
  url?: string
  merchantName: string
  merchantCity: string
  amountCents?: number
  txid: string
}

/**
 * Builds a BR Code. Exactly one of `pixKey` (static code) or `url` (dynamic
 * code: the location of the charge payload, without "https://") is required.
 * Static: txid is 1–25 alphanumerics, "" → "***" (no identifier).
 * Dynamic: the txid travels in the payload at `url`, so 62-05 is always "***"
 * (Manual de Padrões, dynamic example) and `txid` is ignored. Throws RangeError on bad input.
 */
export const buildBrCode = (input: BrCodeInput): string => {
  const { pixKey, url, amountCents } = input
  if ((pixKey === undefined) === (url === undefined)) throw new RangeError("exactly one of pixKey or url")
  const keyOrUrl = (pixKey ?? url) as string
  // 26 = 18 chars of GUI + 4 of sub-field header + value ≤ 99, so ≤ 77 (also the DICT key maximum).
  if (keyOrUrl.length < 1 || keyOrUrl.length > 77 || !PRINTABLE.test(keyOrUrl)) throw new RangeError("bad pixKey/url")
  const name = normalise(input.merchantName, 25)
  const city = normalise(input.merchantCity, 15)
  if (name === "" || city === "") throw new RangeError("merchant name and city are required")
  const dynamic = url !== undefined
  const txid = dynamic || input.txid === "" ? "***" : input.txid
  if (txid !== "***" && !/^[A-Za-z0-9]{1,25}$/.test(txid)) throw new RangeError("txid must be 1–25 alphanumerics")
  let amount = ""
  if (amountCents !== undefined) {
    // Field 54: "." as decimal separator, 2 decimals, at most 13 characters.
    if (!Number.isSafeInteger(amountCents) || amountCents <= 0 || amountCents > 999_999_999_999)
      throw new RangeError("amountCents must be a positive integer ≤ 999999999999")
    amount = tlv("54", `${Math.floor(amountCents / 100)}.${String(amountCents % 100).padStart(2, "0")}`)
  }
  const body =
    tlv("00", "01") +
    (dynamic ? tlv("01", "12") : "") + // 12 = single-use (dynamic); omitted for static codes
    tlv("26", tlv("00", GUI) + (dynamic ? tlv("25", keyOrUrl) : tlv("01", keyOrUrl))) +
    tlv("52", "0000") +
    tlv("53", "986") + // ISO 4217 BRL
    amount +
    tlv("58", "BR") +
    tlv("59", name) +
    tlv("60", city) +
    tlv("62", tlv("05", txid)) +
    "6304"
  return body + crc16CcittFalse(body)
}

/** Splits a TLV string; null if an ID/length is not 2 digits or a value runs past the end. */
const splitTlv = (s: string): Array<readonly [string, string]> | null => {
  const out: Array<readonly [string, string]> = []
  let i = 0
  while (i < s.length) {
    const head = s.slice(i, i + 4)
    if (!/^\d{4}$/.test(head)) return null
    const len = Number(head.slice(2))
    if (i + 4 + len > s.length) return null
    out.push([head.slice(0, 2), s.slice(i + 4, i + 4 + len)])
    i += 4 + len
  }
  return out
}

// Templates whose values are themselves TLV lists (EMV: 26–51 merchant
// account information, 62 additional data, 80–99 unreserved templates).
const isTemplate = (id: string): boolean => {
  const n = Number(id)
  return (n >= 26 && n <= 51) || n === 62 || n >= 80
}

export type ParsedBrCode = {
  fields: Map<string, string>
  templates: Map<string, Map<string, string>>
  dynamic: boolean
  pixKey?: string
  url?: string
  merchantName: string
  merchantCity: string
  amountCents?: number
  txid: string
}

export type BrCodeError = "malformed-tlv" | "bad-crc" | "not-pix" | "missing-field" | "bad-amount"

export type BrCodeParse = { ok: true; code: ParsedBrCode } | { ok: false; error: BrCodeError }

/** Parses and verifies a BR Code (TLV lengths, field 00 first, field 63 last, CRC, Pix GUI). */
export const parseBrCode = (s: string): BrCodeParse => {
  const top = splitTlv(s)
  if (top === null || top.length < 2) return { ok: false, error: "malformed-tlv" }
  const last = top[top.length - 1]
  if (top[0]?.[0] !== "00" || top[0][1] !== "01" || last?.[0] !== "63" || last[1].length !== 4)
    return { ok: false, error: "malformed-tlv" }
  if (crc16CcittFalse(s.slice(0, -4)) !== last[1]) return { ok: false, error: "bad-crc" }
  const fields = new Map<string, string>()
  const templates = new Map<string, Map<string, string>>()
  for (const [id, value] of top) {
    if (fields.has(id)) return { ok: false, error: "malformed-tlv" }
    fields.set(id, value)
    if (isTemplate(id)) {
      const sub = splitTlv(value)
      if (sub === null) return { ok: false, error: "malformed-tlv" }
      templates.set(id, new Map(sub))
    }
  }
  // The Pix account is the 26–51 template whose GUI (sub-field 00) is br.gov.bcb.pix (case-insensitive).
  const account = [...templates].find(([id, t]) => Number(id) <= 51 && t.get("00")?.toLowerCase() === GUI)?.[1]
  if (account === undefined) return { ok: false, error: "not-pix" }
  const pixKey = account.get("01")
  const url = account.get("25")
  const merchantName = fields.get("59")
  const merchantCity = fields.get("60")
  if (merchantName === undefined || merchantCity === undefined || (pixKey === undefined && url === undefined))
    return { ok: false, error: "missing-field" }
  const rawAmount = fields.get("54")
  let amountCents: number | undefined
  if (rawAmount !== undefined) {
    const m = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(rawAmount)
    if (m === null) return { ok: false, error: "bad-amount" }
    amountCents = Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"))
  }
  const code: ParsedBrCode = {
    fields,
    templates,
    dynamic: url !== undefined,
    merchantName,
    merchantCity,
    txid: templates.get("62")?.get("05") ?? "***", // absent reference label read as "none"
    ...(pixKey !== undefined ? { pixKey } : {}),
    ...(url !== undefined ? { url } : {}),
    ...(amountCents !== undefined ? { amountCents } : {})
  }
  return { ok: true, code }
}
