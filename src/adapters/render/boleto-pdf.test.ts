import { inflateSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import {
  BARCODE_LAYOUT,
  barcodeRects,
  formatBrl,
  formatDate,
  formatTaxId,
  renderBoletoPdf,
  toWinAnsi,
  type BoletoPdfInput
} from "./boleto-pdf.ts"
import { decodeItf, type ItfModule } from "./itf.ts"

// A self-consistent Banco do Brasil boleto (check digits computed by hand from the FEBRABAN rules).
const SAMPLE: BoletoPdfInput = {
  beneficiaryName: "Loja Exemplo Comércio Ltda",
  beneficiaryDocument: "12345678000195",
  bankCode: "001-9",
  bankName: "Banco do Brasil S.A.",
  payerName: "João da Silva Araújo",
  payerDocument: "123.456.789-09",
  amountCents: 123456,
  dueDate: "2025-12-15",
  digitableLine: "00190000090123456700400000123174912960000123456",
  formattedDigitableLine: "00190.00009 01234.567004 00000.123174 9 12960000123456",
  barcode: "00199129600001234560000001234567000000012317",
  documentNumber: "PED-2025-000123",
  issuedAt: "2025-12-01",
  instructions: ["Não receber após o vencimento."]
}

// Inflates the page content streams of the real (compressed) output.
const contentStreams = (pdf: Buffer): Array<string> =>
  [...pdf.toString("latin1").matchAll(/stream\n([\s\S]*?)\nendstream/g)].map((m) =>
    inflateSync(Buffer.from(m[1] ?? "", "latin1")).toString("latin1")
  )

// WinAnsi is Latin-1 plus these in 0x80–0x9F; Node 20's TextDecoder("windows-1252") decodes as plain Latin-1.
const WIN_ANSI_EXTRA: Record<string, string> = { "\x85": "…", "\x96": "–", "\x97": "—" }

// PDFKit draws each text line as one `[<hex> kern <hex> …] TJ` array in WinAnsi encoding.
const textRuns = (pdf: Buffer): Array<string> =>
  contentStreams(pdf).flatMap((s) =>
    [...s.matchAll(/\[([^\]]*)\] TJ/g)].map((m) =>
      Buffer.from([...(m[1] ?? "").matchAll(/<([0-9a-f]*)>/g)].map((h) => h[1]).join(""), "hex")
        .toString("latin1")
        .replace(/[\x85\x96\x97]/g, (c) => WIN_ANSI_EXTRA[c] ?? c)
    )
  )

describe("renderBoletoPdf", () => {
  it("produces a complete PDF carrying the boleto's text", async () => {
    const pdf = await renderBoletoPdf(SAMPLE)
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-")
    expect(pdf.toString("latin1").trimEnd().endsWith("%%EOF")).toBe(true)
    const runs = textRuns(pdf)
    expect(runs.filter((t) => t === SAMPLE.formattedDigitableLine)).toHaveLength(2) // recibo + ficha
    expect(runs).toContain(SAMPLE.payerName)
    expect(runs).toContain("João da Silva Araújo — CPF 123.456.789-09")
    expect(runs).toContain("CNPJ 12.345.678/0001-95")
    expect(runs).toContain("R$ 1.234,56")
    expect(runs).toContain("15/12/2025")
    expect(runs).toContain("001-9")
  })

  it("is byte-for-byte deterministic", async () => {
    expect((await renderBoletoPdf(SAMPLE)).equals(await renderBoletoPdf(SAMPLE))).toBe(true)
  })

  it("draws exactly the rectangles of barcodeRects", async () => {
    const { x, y, narrow, height } = BARCODE_LAYOUT
    const expected = barcodeRects(SAMPLE.barcode, x, y, narrow, height).map((r) => [r.x, r.y, r.width, r.height])
    const drawn = contentStreams(await renderBoletoPdf(SAMPLE))
      .flatMap((s) => [...s.matchAll(/^(\S+) (\S+) (\S+) (\S+) re$/gm)].map((m) => m.slice(1, 5).map(Number)))
      .filter(([, ry]) => ry !== undefined && Math.abs(ry - y) < 1e-3)
    expect(drawn).toHaveLength(expected.length)
    drawn.forEach((rect, i) => rect.forEach((v, k) => expect(v).toBeCloseTo(expected[i]?.[k] ?? NaN, 3)))
  })

  it("refuses inconsistent input", async () => {
    const swapped = SAMPLE.digitableLine.slice(0, 33) + "0000" + SAMPLE.digitableLine.slice(37)
    await expect(renderBoletoPdf({ ...SAMPLE, digitableLine: swapped })).rejects.toThrow(RangeError)
    await expect(renderBoletoPdf({ ...SAMPLE, amountCents: 123457 })).rejects.toThrow(RangeError)
    await expect(renderBoletoPdf({ ...SAMPLE, barcode: SAMPLE.barcode.slice(1) })).rejects.toThrow(RangeError)
    await expect(renderBoletoPdf({ ...SAMPLE, formattedDigitableLine: "x" })).rejects.toThrow(RangeError)
    await expect(renderBoletoPdf({ ...SAMPLE, dueDate: "2025-02-30" })).rejects.toThrow(RangeError)
  })
})

describe("barcodeRects", () => {
  it("reads back as the ITF symbol of the barcode", () => {
    const narrow = 0.72
    const rects = barcodeRects(SAMPLE.barcode, 10, 20, narrow, 36)
    expect(rects).toHaveLength(114) // 2 start + 22 pairs × 5 + 2 stop bars
    expect(rects.every((r) => r.y === 20 && r.height === 36)).toBe(true)
    // Rebuild bars and spaces from the rectangles and their gaps, measured in narrow units.
    const units = (w: number): 1 | 3 => (Math.round(w / narrow) === 3 ? 3 : 1)
    const modules: Array<ItfModule> = rects.flatMap((r, i) => {
      const next = rects[i + 1]
      const bar: ItfModule = { bar: true, width: units(r.width) }
      return next === undefined ? [bar] : [bar, { bar: false, width: units(next.x - r.x - r.width) }]
    })
    expect(decodeItf(modules)).toBe(SAMPLE.barcode)
    const last = rects.at(-1)
    expect((last?.x ?? 0) + (last?.width ?? 0) - 10).toBeCloseTo(405 * narrow)
  })
})

describe("formatters", () => {
  it("format money, dates and tax ids the Brazilian way", () => {
    expect(formatBrl(123456)).toBe("R$ 1.234,56")
    expect(formatBrl(5)).toBe("R$ 0,05")
    expect(formatBrl(100000000)).toBe("R$ 1.000.000,00")
    expect(formatDate("2025-12-15")).toBe("15/12/2025")
    expect(formatTaxId("12345678909")).toBe("CPF 123.456.789-09")
    expect(formatTaxId("12.345.678/0001-95")).toBe("CNPJ 12.345.678/0001-95")
    expect(formatTaxId("12ABC34501DE35")).toBe("CNPJ 12.ABC.345/01DE-35")
  })

  it("keeps text inside what Helvetica's WinAnsi encoding can draw", () => {
    expect(toWinAnsi("São João — Ação…")).toBe("São João — Ação…")
    expect(toWinAnsi("Łukasz Żółć 🎉\tok")).toBe("?ukasz Zó?c ? ok")
  })
})
