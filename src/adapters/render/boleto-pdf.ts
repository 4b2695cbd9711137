import type { BoletoSlip } from "../../ports/DocumentRenderer.ts"
import PDFDocument from "pdfkit"
import QRCode from "qrcode"
import { encodeItf } from "./itf.ts"

/** What the slip shows (the port's BoletoSlip). */
export type BoletoPdfInput = BoletoSlip

export type BarRect = { x: number; y: number; width: number; height: number }

const MM = 72 / 25.4

// FEBRABAN: narrow element 0.254 mm (0.010 in) at 1:3, 13 mm tall, so the 405-module symbol is ~103 mm
// long. (0.0254 *inches* per narrow element would make it 257 mm, wider than an A4 sheet.)
export const BARCODE_LAYOUT = { x: 36, y: 742, narrow: 0.254 * MM, height: 13 * MM } as const

// The filled rectangles of the ITF symbol; spaces are simply the gaps between them.
export const barcodeRects = (barcode: string, x: number, y: number, narrow: number, height: number): Array<BarRect> => {
  const rects: Array<BarRect> = []
  let cursor = x
  for (const m of encodeItf(barcode)) {
    if (m.bar) rects.push({ x: cursor, y, width: m.width * narrow, height })
    cursor += m.width * narrow
  }
  return rects
}

// Integer cents formatted by hand: Intl's pt-BR currency output uses a non-breaking space after "R$".
export const formatBrl = (cents: number): string => {
  const sign = cents < 0 ? "-" : ""
  const abs = Math.abs(cents)
  const reais = String(Math.trunc(abs / 100)).replace(/\B(?=(\d{3})+$)/g, ".")
  return `${sign}R$ ${reais},${String(abs % 100).padStart(2, "0")}`
}

export const formatDate = (iso: string): string => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso)
  // Round-tripping through Date rejects impossible days such as 2025-02-30.
  if (m === null || new Date(`${iso}T00:00:00Z`).toISOString().slice(0, 10) !== iso) {
    throw new RangeError(`expected a YYYY-MM-DD date, got ${JSON.stringify(iso)}`)
  }
  return `${m[3]}/${m[2]}/${m[1]}`
}

// CPF (11 digits) or CNPJ (14; the first 12 may be letters from 2026 on); anything else is shown as given.
export const formatTaxId = (doc: string): string => {
  const raw = doc.replace(/[\s./-]/g, "").toUpperCase()
  if (/^\d{11}$/.test(raw)) return `CPF ${raw.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, "$1.$2.$3-$4")}`
  if (/^[\dA-Z]{12}\d{2}$/.test(raw)) return `CNPJ ${raw.replace(/^(.{2})(.{3})(.{3})(.{4})(.{2})$/, "$1.$2.$3/$4-$5")}`
  return doc
}

// The digitable line is a permutation of the barcode plus check digits; a mismatch would print a boleto
// whose typed line and scanned barcode pay different things, so refuse to render it.
const validate = (b: BoletoPdfInput): void => {
  const fail = (why: string): never => {
    throw new RangeError(`boleto: ${why}`)
  }
  if (!/^\d{44}$/.test(b.barcode)) fail("barcode must be 44 digits")
  if (!/^\d{47}$/.test(b.digitableLine)) fail("digitable line must be 47 digits")
  if (b.formattedDigitableLine.replace(/\D/g, "") !== b.digitableLine) fail("formatted digitable line differs")
  const l = b.digitableLine
  const fromLine = l.slice(0, 4) + l.slice(32, 33) + l.slice(33, 47) + l.slice(4, 9) + l.slice(10, 20) + l.slice(21, 31)
  if (fromLine !== b.barcode) fail("digitable line does not match barcode")
  if (!Number.isSafeInteger(b.amountCents) || b.amountCents < 0) fail("amountCents must be a non-negative integer")
  const coded = Number(b.barcode.slice(9, 19)) // zero means "amount filled in at payment"
  if (coded !== 0 && coded !== b.amountCents) fail("amount differs from the one in the barcode")
  formatDate(b.dueDate)
  formatDate(b.issuedAt)
}

type Doc = PDFKit.PDFDocument
type CellOpts = { align?: "left" | "right" | "center"; bold?: boolean; size?: number }

// PDFKit's standard fonts only speak WinAnsi: anything else comes out as garbage glyphs with zero
// width (breaking the fitting below). Strip accents where that helps, otherwise show "?".
const WIN_ANSI_EXTRAS = new Set("ƒ–—‘’‚“”„†‡•…€‰‹›ˆ™Œœ˜ŠšŸŽž")
const inWinAnsi = (c: string): boolean => {
  const cp = c.codePointAt(0) ?? 0
  return (cp >= 0x20 && cp < 0x7f) || (cp >= 0xa0 && cp <= 0xff) || WIN_ANSI_EXTRAS.has(c)
}
export const toWinAnsi = (text: string): string =>
  Array.from(text.normalize("NFC").replace(/\s/g, " "), (c) => {
    if (inWinAnsi(c)) return c
    const bare = c.normalize("NFD").replace(/\p{M}/gu, "")
    return bare !== "" && Array.from(bare).every(inWinAnsi) ? bare : "?"
  }).join("")

// Single-line text, truncated with an ellipsis rather than wrapped into the next box.
const fitted = (doc: Doc, text: string, width: number): string => {
  if (doc.widthOfString(text) <= width) return text
  let s = text
  while (s.length > 0 && doc.widthOfString(`${s}…`) > width) s = s.slice(0, -1)
  return `${s.trimEnd()}…`
}

const line = (doc: Doc, text: string, x: number, y: number, width: number, o: CellOpts = {}): void => {
  doc.font(o.bold === true ? "Helvetica-Bold" : "Helvetica").fontSize(o.size ?? 9)
  doc.text(fitted(doc, toWinAnsi(text), width), x, y, { width, align: o.align ?? "left" })
}

const cell = (
  doc: Doc,
  x: number,
  y: number,
  w: number,
  h: number,
  label: string,
  value = "",
  o: CellOpts = {}
): void => {
  doc.lineWidth(0.5).rect(x, y, w, h).stroke()
  line(doc, label, x + 2, y + 2, w - 4, { size: 6 })
  line(doc, value, x + 3, y + h - 11, w - 6, { ...o, size: o.size ?? 9 })
}

const LEFT = 36
const WIDTH = 595.28 - 2 * LEFT
const RIGHT_COL = 140
const MAIN = WIDTH - RIGHT_COL
const ROW = 22

// Bank name | bank code | digitable line, over the thick rule real boletos use to mark each part.
const header = (doc: Doc, b: BoletoPdfInput, y: number, lineSize: number): number => {
  line(doc, b.bankName, LEFT, y + 8, 150, { bold: true, size: 11 })
  doc
    .lineWidth(1.5)
    .moveTo(LEFT + 152, y)
    .lineTo(LEFT + 152, y + 24)
    .moveTo(LEFT + 212, y)
    .lineTo(LEFT + 212, y + 24)
    .stroke()
  line(doc, b.bankCode, LEFT + 152, y + 5, 60, { bold: true, size: 15, align: "center" })
  // The digitable line is what payers type in, so it shrinks to fit rather than being truncated.
  const room = WIDTH - 216
  const natural = doc.font("Helvetica-Bold").fontSize(lineSize).widthOfString(b.formattedDigitableLine)
  const size = Math.min(lineSize, (lineSize * room) / natural)
  line(doc, b.formattedDigitableLine, LEFT + 216, y + 21 - size, room, { bold: true, size, align: "right" })
  doc
    .lineWidth(1.5)
    .moveTo(LEFT, y + 24)
    .lineTo(LEFT + WIDTH, y + 24)
    .stroke()
  return y + 24
}

const cells = (doc: Doc, y: number, specs: ReadonlyArray<readonly [number, string, string?, CellOpts?]>): number => {
  let x = LEFT
  for (const [w, label, value, o] of specs) {
    cell(doc, x, y, w, ROW, label, value ?? "", o ?? {})
    x += w
  }
  return y + ROW
}

/** "Loja da Ana — CNPJ 12.345.678/0001-95", the name alone without a document, "" without a merchant. */
const guarantor = (b: BoletoPdfInput): string =>
  b.guarantorName === undefined
    ? ""
    : b.guarantorDocument
      ? `${b.guarantorName} — ${formatTaxId(b.guarantorDocument)}`
      : b.guarantorName

// The payer's half: what they paid, to whom (the merchant beside the gateway), and when, kept after the
// ficha is torn off at the bank (issue 23: it used to be half empty).
const receipt = (doc: Doc, b: BoletoPdfInput, amount: string, due: string): number => {
  let y = header(doc, b, 36, 10)
  const r = { align: "right", bold: true } as const
  const w = MAIN - 130
  y = cells(doc, y, [
    [w, "Beneficiário", b.beneficiaryName],
    [130, "CPF/CNPJ do Beneficiário", formatTaxId(b.beneficiaryDocument)],
    [RIGHT_COL, "Vencimento", due, r]
  ])
  y = cells(doc, y, [
    [w, "Sacador / Avalista (beneficiário final)", b.guarantorName ?? ""],
    [130, "CPF/CNPJ do Sacador / Avalista", b.guarantorDocument ? formatTaxId(b.guarantorDocument) : ""],
    [RIGHT_COL, "(=) Valor do documento", amount, r]
  ])
  y = cells(doc, y, [
    [w, "Pagador", b.payerName],
    [130, "CPF/CNPJ do Pagador", formatTaxId(b.payerDocument)],
    [RIGHT_COL, "(-) Desconto / Abatimento"]
  ])
  y = cells(doc, y, [
    [w / 2, "Nosso número", b.ourNumber ?? ""],
    [w / 2, "Número do documento", b.documentNumber],
    [130, "Data do documento", formatDate(b.issuedAt)],
    [RIGHT_COL, "(=) Valor cobrado"]
  ])
  doc.lineWidth(0.5).rect(LEFT, y, WIDTH, 34).stroke()
  line(doc, "Instruções", LEFT + 2, y + 2, 100, { size: 6 })
  for (const [i, t] of (b.instructions ?? []).slice(0, 2).entries()) {
    line(doc, t, LEFT + 3, y + 11 + i * 10, WIDTH - 6, { size: 8 })
  }
  y += 34
  line(doc, "Recibo do Pagador", LEFT, y + 4, 200, { bold: true, size: 8 })
  line(doc, "Autenticação mecânica", LEFT + MAIN, y + 4, RIGHT_COL, { size: 7, align: "right" })
  return y
}

const cutLine = (doc: Doc, y: number): void => {
  doc
    .lineWidth(0.5)
    .dash(3, { space: 2 })
    .moveTo(LEFT, y)
    .lineTo(LEFT + WIDTH, y)
    .stroke()
    .undash()
  line(doc, "Corte na linha pontilhada", LEFT, y - 9, WIDTH, { size: 6, align: "right" })
}

const slip = (doc: Doc, b: BoletoPdfInput, amount: string, due: string, top: number): number => {
  const r = { align: "right", bold: true } as const
  let y = header(doc, b, top, 13)
  y = cells(doc, y, [
    [MAIN, "Local de pagamento", "Pagável em qualquer banco até o vencimento"],
    [RIGHT_COL, "Vencimento", due, r]
  ])
  y = cells(doc, y, [
    [MAIN, "Beneficiário", `${b.beneficiaryName} — ${formatTaxId(b.beneficiaryDocument)}`],
    [RIGHT_COL, "Agência / Código do Beneficiário"]
  ])
  // Fields the input does not carry (nosso número, carteira, …) stay as empty labelled boxes.
  const q = MAIN / 5
  const issued = formatDate(b.issuedAt)
  y = cells(doc, y, [
    [q, "Data do documento", issued],
    [q * 1.4, "Número do documento", b.documentNumber],
    [q * 0.8, "Espécie doc."],
    [q * 0.6, "Aceite"],
    [q * 1.2, "Data processamento", issued],
    [RIGHT_COL, "Nosso número", b.ourNumber ?? "", { align: "right" }]
  ])
  y = cells(doc, y, [
    [q, "Uso do banco"],
    [q * 0.8, "Carteira"],
    [q * 0.6, "Espécie", "R$"],
    [q * 1.4, "Quantidade"],
    [q * 1.2, "Valor"],
    [RIGHT_COL, "(=) Valor do documento", amount, r]
  ])
  // Instructions on the left, the five adjustment boxes stacked on the right.
  const side = [
    "(-) Desconto / Abatimento",
    "(-) Outras deduções",
    "(+) Mora / Multa",
    "(+) Outros acréscimos",
    "(=) Valor cobrado"
  ]
  side.forEach((label, i) => cell(doc, LEFT + MAIN, y + i * ROW, RIGHT_COL, ROW, label))
  doc
    .lineWidth(0.5)
    .rect(LEFT, y, MAIN, side.length * ROW)
    .stroke()
  line(doc, "Instruções (texto de responsabilidade do beneficiário)", LEFT + 2, y + 2, MAIN - 4, { size: 6 })
  const maxLines = Math.floor((side.length * ROW - 12) / 11)
  for (const [i, t] of (b.instructions ?? []).slice(0, maxLines).entries()) {
    line(doc, t, LEFT + 3, y + 12 + i * 11, MAIN - 6, { size: 8 })
  }
  y += side.length * ROW
  doc.lineWidth(0.5).rect(LEFT, y, WIDTH, 40).stroke()
  line(doc, "Pagador", LEFT + 2, y + 2, 100, { size: 6 })
  line(doc, `${b.payerName} — ${formatTaxId(b.payerDocument)}`, LEFT + 3, y + 11, WIDTH - 6, { bold: true })
  line(doc, "Sacador / Avalista", LEFT + 2, y + 31, 60, { size: 6 })
  line(doc, guarantor(b), LEFT + 62, y + 29, WIDTH - 66, { size: 8 })
  y += 40
  line(doc, "Autenticação mecânica — Ficha de Compensação", LEFT, y + 3, WIDTH, { size: 7, align: "right" })
  return y
}

/**
 * A bolepix's PIX side, between the receipt and the cut (docs/boleto.md "Bolepix"): the QR code drawn as
 * vector modules (byte mode, as the PNG is) and the "copia e cola" text, so the buyer pays either rail.
 */
const PIX_BLOCK = 120
const pixBlock = (doc: Doc, emv: string, top: number): void => {
  const size = PIX_BLOCK
  const qr = QRCode.create([{ mode: "byte" as const, data: Buffer.from(emv, "utf8") }], { errorCorrectionLevel: "M" })
  const n = qr.modules.size
  const cellSize = size / (n + 8)
  for (let r = 0; r < n; r++)
    for (let c = 0; c < n; c++)
      if (qr.modules.get(r, c)) doc.rect(LEFT + (c + 4) * cellSize, top + (r + 4) * cellSize, cellSize, cellSize)
  doc.fill("black")
  const x = LEFT + size + 12
  const w = WIDTH - size - 12
  line(doc, "Pague também com PIX", x, top + 8, w, { bold: true, size: 10 })
  line(doc, "Aponte a câmera do app do seu banco para o QR Code ou use o PIX copia e cola abaixo.", x, top + 24, w, {
    size: 8
  })
  line(doc, "O primeiro pagamento quita o boleto; um segundo pagamento é devolvido.", x, top + 36, w, { size: 8 })
  doc.font("Courier").fontSize(6.5)
  doc.text(toWinAnsi(emv), x, top + 52, { width: w, height: size - 52, lineBreak: true })
}

// A4 boleto: "Recibo do Pagador" on top, the "Ficha de Compensação" with the ITF barcode at the bottom.
export const renderBoletoPdf = async (b: BoletoPdfInput): Promise<Buffer> => {
  validate(b)
  // Noon UTC keeps the calendar date the same in every Brazilian (and most other) time zones; a fixed
  // creation date also fixes PDFKit's document ID, so equal inputs give byte-identical files.
  const doc = new PDFDocument({
    size: "A4",
    margin: 0,
    info: { Title: `Boleto ${b.documentNumber}`, CreationDate: new Date(`${b.issuedAt}T12:00:00Z`) }
  })
  const chunks: Array<Buffer> = []
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (c: Buffer) => chunks.push(c))
    doc.on("end", () => resolve(Buffer.concat(chunks)))
    doc.on("error", reject)
  })
  const amount = formatBrl(b.amountCents)
  const due = formatDate(b.dueDate)
  // Recibo at the top, ficha at the bottom with the cut right above it, as bank-issued boletos do.
  const slipTop = BARCODE_LAYOUT.y - 290
  const receiptBottom = receipt(doc, b, amount, due)
  if (b.pixEmv !== undefined) {
    if (receiptBottom + 24 + PIX_BLOCK > slipTop - 28) throw new Error("boleto layout overflow (PIX block)")
    pixBlock(doc, b.pixEmv, receiptBottom + 24)
  }
  cutLine(doc, slipTop - 16)
  const bottom = slip(doc, b, amount, due, slipTop)
  if (bottom + 10 > BARCODE_LAYOUT.y) throw new Error("boleto layout overflow") // guards edits to the constants
  const { x, y, narrow, height } = BARCODE_LAYOUT
  for (const r of barcodeRects(b.barcode, x, y, narrow, height)) doc.rect(r.x, r.y, r.width, r.height)
  doc.fill("black")
  doc.end()
  return done
}
