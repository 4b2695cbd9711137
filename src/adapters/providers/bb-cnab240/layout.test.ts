import { describe, expect, it } from "vitest"
import {
  BATCH_HEADER,
  BATCH_TRAILER,
  cnabDate,
  type Field,
  FILE_HEADER,
  FILE_TRAILER,
  isCnabDate,
  isoDate,
  readRecord,
  SEGMENT_P,
  SEGMENT_Q,
  SEGMENT_R,
  SEGMENT_T,
  SEGMENT_U,
  SEGMENT_Y03,
  writeRecord
} from "./layout.ts"

const TABLES: Record<string, ReadonlyArray<Field>> = {
  FILE_HEADER,
  BATCH_HEADER,
  SEGMENT_P,
  SEGMENT_Q,
  SEGMENT_R,
  SEGMENT_Y03,
  SEGMENT_T,
  SEGMENT_U,
  BATCH_TRAILER,
  FILE_TRAILER
}

/** Where a field lies, as [from, to]. */
const at = (layout: ReadonlyArray<Field>, name: string) => {
  const field = layout.find((x) => x.name === name)
  return field === undefined ? undefined : [field.from, field.to]
}

describe("CNAB 240 layout tables", () => {
  it.each(Object.entries(TABLES))("%s covers positions 1–240 without gap or overlap", (_, layout) => {
    let next = 1
    for (const field of layout) {
      expect(field.from, field.name).toBe(next)
      expect(field.to, field.name).toBeGreaterThanOrEqual(field.from)
      next = field.to + 1
    }
    expect(next).toBe(241)
    expect(new Set(layout.map((x) => x.name)).size).toBe(layout.length)
  })

  // The retorno positions a paid title is read from (../shared/notes/rails-research.md §3.1, after the
  // FEBRABAN 240 layout as laravel-boleto's Bb.php reads it).
  it.each([
    [SEGMENT_T, "movement", 16, 17],
    [SEGMENT_T, "ourNumber", 38, 57],
    [SEGMENT_T, "wallet", 58, 58],
    [SEGMENT_T, "documentNumber", 59, 73],
    [SEGMENT_T, "dueDate", 74, 81],
    [SEGMENT_T, "amount", 82, 96],
    [SEGMENT_T, "companyUse", 106, 130],
    [SEGMENT_T, "payerDocument", 134, 148],
    [SEGMENT_T, "payerName", 149, 188],
    [SEGMENT_T, "fee", 199, 213],
    [SEGMENT_T, "reasons", 214, 223],
    [SEGMENT_U, "charges", 18, 32],
    [SEGMENT_U, "discount", 33, 47],
    [SEGMENT_U, "abatement", 48, 62],
    [SEGMENT_U, "iof", 63, 77],
    [SEGMENT_U, "paid", 78, 92],
    [SEGMENT_U, "credited", 93, 107],
    [SEGMENT_U, "occurredOn", 138, 145],
    [SEGMENT_U, "creditOn", 146, 153],
    // Bolepix (§3.2, generic Y-03 after brcobranca's pix_mixin.rb).
    [SEGMENT_Y03, "optional", 18, 19],
    [SEGMENT_Y03, "keyType", 28, 28],
    [SEGMENT_Y03, "key", 29, 105],
    [SEGMENT_Y03, "txid", 106, 140]
  ] as const)("%#: %s at %i–%i", (layout, name, from, to) => {
    expect(at(layout, name)).toEqual([from, to])
  })

  it("writes a segment P field by field at its positions, and reads it back", () => {
    const line = writeRecord(SEGMENT_P, {
      bank: "001",
      batch: 1,
      sequence: 1,
      movement: "01",
      agency: "1234",
      agencyDigit: "5",
      account: "123456",
      accountDigit: "X",
      ourNumber: "12345670000000001",
      wallet: 1,
      documentNumber: "pedido-ação 42",
      dueDate: cnabDate("2027-02-10"),
      amount: 100_000,
      kind: "02",
      accepted: "N",
      issuedOn: cnabDate("2027-01-20"),
      interestCode: 2,
      interestFrom: cnabDate("2027-02-11"),
      interestValue: 100,
      discount1Code: 1,
      discount1Until: cnabDate("2027-02-01"),
      discount1Value: 5_000,
      companyUse: "0b5e1f1c-2f47-4f59-8f06-1b0c4c1f7c2a"
    })
    expect(line).toHaveLength(240)
    const slice = (from: number, to: number) => line.slice(from - 1, to)
    expect(slice(1, 3)).toBe("001")
    expect(slice(4, 7)).toBe("0001")
    expect(slice(8, 8)).toBe("3")
    expect(slice(9, 13)).toBe("00001")
    expect(slice(14, 14)).toBe("P")
    expect(slice(16, 17)).toBe("01")
    expect(slice(18, 22)).toBe("01234")
    expect(slice(24, 35)).toBe("000000123456")
    expect(slice(38, 57)).toBe("12345670000000001   ")
    expect(slice(63, 77)).toBe("PEDIDO-ACAO 42 ")
    expect(slice(78, 85)).toBe("10022027")
    expect(slice(86, 100)).toBe("000000000100000")
    expect(slice(118, 118)).toBe("2")
    expect(slice(119, 126)).toBe("11022027")
    expect(slice(127, 141)).toBe("000000000000100")
    expect(slice(142, 150)).toBe("101022027")
    expect(slice(151, 165)).toBe("000000000005000")
    expect(slice(196, 220)).toBe("0B5E1F1C-2F47-4F59-8F06-1")
    expect(slice(228, 229)).toBe("09")
    const read = readRecord(SEGMENT_P, line)
    expect(read.ok && read.fields["amount"]).toBe("000000000100000")
    expect(read.ok && isoDate(read.fields["dueDate"]!)).toBe("2027-02-10")
  })

  it("writes a bolepix's segment Y-03 field by field, its key and txid exactly as given (the API Pix's case)", () => {
    const txid = "0b5E1f1c2f474f598f061b0c4c1f7c2a"
    const key = "7d9f0335-8dcc-4054-9bf9-0dbd61d36906"
    const line = writeRecord(SEGMENT_Y03, { bank: "001", batch: 1, sequence: 4, movement: "01", keyType: 5, key, txid })
    expect(line).toHaveLength(240)
    const slice = (from: number, to: number) => line.slice(from - 1, to)
    expect(slice(1, 8)).toBe("00100013")
    expect(slice(9, 13)).toBe("00004")
    expect(slice(14, 14)).toBe("Y")
    expect(slice(16, 17)).toBe("01")
    expect(slice(18, 19)).toBe("03")
    expect(slice(20, 27)).toBe(" ".repeat(8))
    expect(slice(28, 28)).toBe("5")
    expect(slice(29, 105)).toBe(key.padEnd(77, " "))
    expect(slice(106, 140)).toBe(txid.padEnd(35, " "))
    expect(slice(141, 240)).toBe(" ".repeat(100))
    const read = readRecord(SEGMENT_Y03, line)
    expect(read.ok && [read.fields["key"], read.fields["txid"]]).toEqual([key, txid])
    // A key or txid that cannot be written as it is is refused, never cut or changed.
    expect(() => writeRecord(SEGMENT_Y03, { key: "k".repeat(78), txid })).toThrow(RangeError)
    expect(() => writeRecord(SEGMENT_Y03, { key: "joão@example.com", txid })).toThrow(RangeError)
  })

  // IN RFB 2.229/2024: alphanumeric CNPJs are issued since July 2026. FEBRABAN keeps the inscription fields
  // where and as they were (right-aligned, zero-filled) and lets them carry the letters; the beneficiary's too.
  it.each([
    ["file header", FILE_HEADER, "companyDocument", 19, 32],
    ["batch header", BATCH_HEADER, "companyDocument", 19, 33],
    ["segment Q", SEGMENT_Q, "payerDocument", 19, 33],
    ["segment Q", SEGMENT_Q, "guarantorDocument", 155, 169],
    ["segment T", SEGMENT_T, "payerDocument", 134, 148]
  ] as const)("%s %s (%i–%i) carries an alphanumeric CNPJ, and reads it back", (_, layout, name, from, to) => {
    const cnpj = "12ABC34501DE35" // the Receita Federal's published example
    const line = writeRecord(layout, { [name]: cnpj })
    expect(line.slice(from - 1, to)).toBe(cnpj.padStart(to - from + 1, "0"))
    const read = readRecord(layout, line)
    expect(read.ok && read.fields[name]).toBe(cnpj.padStart(to - from + 1, "0"))
    // Digits as before; anything else in it is still refused, written or read.
    expect(writeRecord(layout, { [name]: "52998224725" }).slice(from - 1, to)).toBe(
      "52998224725".padStart(to - from + 1, "0")
    )
    expect(() => writeRecord(layout, { [name]: "12.ABC.345/01DE-35" })).toThrow(RangeError)
    expect(() => writeRecord(layout, { [name]: "12abc34501de35" })).toThrow(RangeError)
    const broken = `${line.slice(0, from - 1)}${"12 ABC".padStart(to - from + 1, "0")}${line.slice(to)}`
    expect(readRecord(layout, broken)).toMatchObject({
      ok: false,
      error: expect.stringContaining(`${name} (${from}-${to})`)
    })
  })

  it("takes a DDMMAAAA date only when the calendar has that day, 00000000 as no date", () => {
    for (const day of ["00000000", "29022028", "28022027", "31122027", "01010001", "30042027"]) {
      expect(isCnabDate(day), day).toBe(true)
    }
    for (const day of ["00002027", "29022027", "31042027", "32012027", "01132027", "00012027", "01000000", "0101202"]) {
      expect(isCnabDate(day), day).toBe(false)
    }
    expect(isoDate("29022028")).toBe("2028-02-29")
    expect(isoDate("00000000")).toBe(null)
    // Years 1–99 are themselves, not 1901–1999.
    expect(isoDate("01010050")).toBe("0050-01-01")
    expect(() => isoDate("31042027")).toThrow(RangeError)
  })

  it("names the field a malformed line breaks", () => {
    const line = writeRecord(SEGMENT_U, { bank: "001", batch: 1, sequence: 2, movement: "06", paid: 102_333 })
    expect(readRecord(SEGMENT_U, line).ok).toBe(true)
    const broken = `${line.slice(0, 80)}12A${line.slice(83)}`
    expect(readRecord(SEGMENT_U, broken)).toEqual({
      ok: false,
      error: 'paid (78-92) is not numeric: "00012A000102333"'
    })
    expect(readRecord(SEGMENT_U, line.slice(0, 239))).toEqual({ ok: false, error: "239 characters, not 240" })
    expect(readRecord(SEGMENT_T, line)).toMatchObject({ ok: false })
    expect(() => writeRecord(SEGMENT_U, { paid: 10 ** 16 })).toThrow(RangeError)
  })
})
