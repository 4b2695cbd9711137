import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { answerRemessa, type Outcome } from "../../../../test/fakes/bank/bank.ts"
import { amountDue, type ChargeTerms } from "../../../domain/chargeTerms.ts"
import { addCalendarDays } from "../../../domain/calendar.ts"
import { isValidBuyerDocument } from "../../../domain/document.ts"
import { readRecord, SEGMENT_P, SEGMENT_Q, SEGMENT_R } from "./layout.ts"
import { BANCO_DO_BRASIL } from "./profile.ts"
import { buildRemessa, dictKeyType, type RefusedTitle, type RemessaTitle } from "./remessa.ts"
import { isPaid, parseRetorno } from "./retorno.ts"

const AGREEMENT = {
  agreement: "1234567",
  wallet: "17",
  walletVariation: "019",
  agency: "1234",
  agencyDigit: "5",
  account: "123456",
  accountDigit: "7",
  companyDocument: "11222333000181",
  companyName: "Payment Gateway"
}
const TERMS: ChargeTerms = {
  fine: { kind: "percentage", value: 200 },
  interest: { kind: "percentage_per_month", value: 100 },
  discounts: [{ kind: "fixed", value: 500, until: "2027-02-01" }]
}
const DUE = "2027-02-05"

const titles = (n: number): RemessaTitle[] =>
  Array.from({ length: n }, (_, i) => ({
    transactionId: randomUUID(),
    sequence: i + 1,
    amount: 10_000 + i,
    dueDate: DUE,
    issuedOn: "2027-01-20",
    payerName: "Beatriz Souza",
    payerDocument: "52998224725",
    terms: i % 2 === 0 ? TERMS : undefined,
    writeOffDays: 30
  }))

// The mix a test asks the bank for, by the title's place in the remessa.
const MIX: ReadonlyArray<(i: number) => Outcome> = [
  () => ({ movement: "02" }),
  () => ({ movement: "03", reasons: ["08", "16"] }),
  (i) => ({ movement: "06", paidOn: addCalendarDays(DUE, i % 13), fee: 180, reasons: ["04"] }),
  () => ({ movement: "09", reasons: ["10"] }),
  (i) => ({ movement: "17", paidOn: addCalendarDays(DUE, 20 + (i % 5)), fee: 180 }),
  () => ({ movement: "28", fee: 90 })
]

describe("CNAB 240: remessa → fake bank → retorno", () => {
  it("1,000 titles: exactly the paid ones (06, 17) come back paid, with the bank's amounts", () => {
    const sent = titles(1_000)
    const remessa = buildRemessa(BANCO_DO_BRASIL, AGREEMENT, 7, new Date("2027-01-20T12:00:00Z"), sent)
    const lines = remessa.split("\r\n").filter((l) => l !== "")
    // File header, batch header, P Q R per title, batch trailer, file trailer.
    expect(lines).toHaveLength(2 + 3 * 1_000 + 2)
    expect(lines.every((l) => l.length === 240)).toBe(true)
    expect(lines[0]!.slice(157, 163)).toBe("000007") // NSA
    expect(lines.at(-1)!.slice(23, 29)).toBe(String(lines.length).padStart(6, "0"))
    // The terms as segments P and R carry them.
    const p = readRecord(SEGMENT_P, lines[2]!)
    const r = readRecord(SEGMENT_R, lines[4]!)
    expect(p.ok && [p.fields["interestCode"], p.fields["interestValue"], p.fields["discount1Value"]]).toEqual([
      "2",
      "000000000000100",
      "000000000000500"
    ])
    expect(r.ok && [r.fields["fineCode"], r.fields["fineFrom"], r.fields["fineValue"]]).toEqual([
      "2",
      "06022027",
      "000000000000200"
    ])

    const retorno = answerRemessa(remessa, 7, (t) => MIX[t.index % MIX.length]!(t.index))
    const read = parseRetorno(retorno)
    if ("error" in read) throw new Error(read.error)
    expect(read.fileNumber).toBe(7)
    expect(read.rejected).toEqual([])
    expect(read.titles).toHaveLength(1_000)
    const byId = new Map(sent.map((t) => [t.transactionId, t]))
    const paid = read.titles.filter((t) => isPaid(t.movement))
    expect(paid).toHaveLength(Math.ceil((1_000 - 2) / 6) + Math.ceil((1_000 - 4) / 6))
    for (const t of read.titles) {
      const title = byId.get(t.transactionId)!
      expect(title, t.transactionId).toBeDefined()
      const i = sent.indexOf(title)
      expect(t.movement).toBe(MIX[i % MIX.length]!(i).movement)
      if (!isPaid(t.movement)) {
        expect(t.paid).toBe(0)
        continue
      }
      // What the title's terms ask on the day the bank says it was paid, to the centavo.
      const due = amountDue(title.amount, DUE, title.terms, t.occurredOn!)
      expect([t.paid, t.charges, t.discount, t.fee, t.credited]).toEqual([
        due.total,
        due.fine + due.interest,
        due.discount,
        180,
        due.total - 180
      ])
    }
    const rejectedReasons = read.titles.find((t) => t.movement === "03")!.reasons
    expect(rejectedReasons).toEqual(["08", "16"])
  })

  it("a malformed line is reported with its line number; the rest of the file is read", () => {
    const sent = titles(10)
    const remessa = buildRemessa(BANCO_DO_BRASIL, AGREEMENT, 8, new Date("2027-01-20T12:00:00Z"), sent)
    const retorno = answerRemessa(remessa, 8, () => ({ movement: "06", paidOn: DUE }))
    const lines = retorno.split("\r\n")
    // Line 7 is the third title's T (headers, then T and U per title): break its amount (82–96).
    lines[6] = `${lines[6]!.slice(0, 85)}X${lines[6]!.slice(86)}`
    const read = parseRetorno(lines.join("\r\n"))
    if ("error" in read) throw new Error(read.error)
    expect(read.rejected).toEqual([
      { line: 7, error: expect.stringContaining("amount (82-96) is not numeric") },
      { line: 8, error: "its segment T was rejected" }
    ])
    expect(read.titles).toHaveLength(9)
    expect(read.titles.map((t) => t.line)).toEqual([3, 5, 9, 11, 13, 15, 17, 19, 21])
  })

  it("a U with a day of occurrence or credit the calendar lacks is reported; the rest is read", () => {
    const sent = titles(4)
    const remessa = buildRemessa(BANCO_DO_BRASIL, AGREEMENT, 10, new Date("2027-01-20T12:00:00Z"), sent)
    const retorno = answerRemessa(remessa, 10, () => ({ movement: "06", paidOn: DUE }))
    const lines = retorno.split("\r\n")
    // Line 4 is the first title's U: its day of occurrence (138–145) 31 April; line 8, the third's: its credit
    // date (146–153) day 00. Digits both, as the picture asks.
    lines[3] = `${lines[3]!.slice(0, 137)}31042027${lines[3]!.slice(145)}`
    lines[7] = `${lines[7]!.slice(0, 145)}00022027${lines[7]!.slice(153)}`
    const read = parseRetorno(lines.join("\r\n"))
    if ("error" in read) throw new Error(read.error)
    expect(read.rejected).toEqual([
      { line: 4, error: 'segment U of line 3: occurredOn (138-145) is not a date: "31042027"' },
      { line: 8, error: 'segment U of line 7: creditOn (146-153) is not a date: "00022027"' }
    ])
    expect(read.titles.map((t) => [t.line, t.occurredOn, t.creditOn])).toEqual([
      [5, DUE, DUE],
      [9, DUE, DUE]
    ])
  })

  it("a segment T without its U is reported; the next title, read on its own, is not lost", () => {
    const sent = titles(4)
    const remessa = buildRemessa(BANCO_DO_BRASIL, AGREEMENT, 9, new Date("2027-01-20T12:00:00Z"), sent)
    const retorno = answerRemessa(remessa, 9, () => ({ movement: "06", paidOn: DUE }))
    const lines = retorno.split("\r\n")
    // Line 6 is the second title's U (headers on 1–2, then T and U per title): the bank's file lost it.
    lines.splice(5, 1)
    const read = parseRetorno(lines.join("\r\n"))
    if ("error" in read) throw new Error(read.error)
    expect(read.rejected).toEqual([{ line: 5, error: "segment T without its segment U on the next line" }])
    // The third title's T and U (now lines 6 and 7) and the fourth's are read.
    expect(read.titles.map((t) => t.line)).toEqual([3, 6, 8])
  })
})

describe("CNAB 240: what one title cannot break, and the file's date", () => {
  // The Receita Federal's published example of an alphanumeric CNPJ (IN RFB 2.229/2024, issued since July 2026).
  const CNPJ = "12ABC34501DE35"

  // Both interfaces accept an alphanumeric CNPJ as the buyer's document (src/domain/document.ts). Segment Q
  // 19–33 was a plain "9" field, so writing it threw and cutRemessa died for the whole file, every cycle: no
  // boleto of any merchant reached the bank. FEBRABAN's adaptation: the same field, right-aligned and
  // zero-filled, letters allowed (layout.ts `inscription`).
  it("a title whose payer has an alphanumeric CNPJ goes in the remessa with the others, and comes back", () => {
    expect(isValidBuyerDocument(CNPJ)).toBe(true)
    const sent = titles(3).map((t, i) => (i === 1 ? { ...t, payerDocument: CNPJ } : t))
    const refused: RefusedTitle[] = []
    const remessa = buildRemessa(BANCO_DO_BRASIL, AGREEMENT, 10, new Date("2026-11-27T15:00:00Z"), sent, (r) =>
      refused.push(r)
    )
    expect(refused).toEqual([])
    const q = remessa.split("\r\n").filter((l) => l.slice(13, 14) === "Q")
    expect(q).toHaveLength(3)
    const read = readRecord(SEGMENT_Q, q[1]!)
    expect(read.ok && [read.fields["payerDocumentType"], read.fields["payerDocument"]]).toEqual(["2", `0${CNPJ}`])
    expect(q[0]!.slice(17, 33)).toBe("1000052998224725") // a CPF as before

    // The bank's retorno naming that payer in T 134–148 is read, not rejected as "not numeric".
    const retorno = answerRemessa(remessa, 10, () => ({ movement: "06", paidOn: DUE })).split("\r\n")
    retorno[4] = `${retorno[4]!.slice(0, 132)}2${`0${CNPJ}`}${retorno[4]!.slice(148)}` // the second title's T
    const back = parseRetorno(retorno.join("\r\n"))
    if ("error" in back) throw new Error(back.error)
    expect(back.rejected).toEqual([])
    expect(back.titles.map((t) => t.transactionId)).toEqual(sent.map((t) => t.transactionId))
  })

  // Defence in depth: whatever one title carries that its field cannot hold, the others still reach the bank.
  it("a title that cannot be written is left out alone, with the reason; the file stays whole and numbered", () => {
    const sent = titles(4)
    const broken = [
      { ...sent[1]!, payerDocument: "12.ABC.345/01DE-35" }, // punctuation: not as the gateway stores it
      sent[2]!,
      // A DICT key is written exactly or not at all (layout.ts `exact`).
      {
        ...sent[3]!,
        pix: { keyType: 4 as const, key: "joão@example.com", txid: "0b5e1f1c2f474f598f061b0c4c1f7c2a" }
      }
    ]
    const refused: RefusedTitle[] = []
    const remessa = buildRemessa(
      BANCO_DO_BRASIL,
      AGREEMENT,
      11,
      new Date("2026-11-27T15:00:00Z"),
      [sent[0]!, ...broken],
      (r) => refused.push(r)
    )
    expect(refused.map((r) => [r.title.transactionId, r.reason])).toEqual([
      [sent[1]!.transactionId, expect.stringContaining("payerDocument (19-33)")],
      [sent[3]!.transactionId, expect.stringContaining("key (29-105)")]
    ])
    const lines = remessa.split("\r\n").filter((l) => l !== "")
    // File header, batch header, P Q R of the two written titles, batch trailer, file trailer.
    expect(lines).toHaveLength(2 + 3 * 2 + 2)
    expect(lines.slice(2, 8).map((l) => [l.slice(8, 13), l.slice(13, 14)])).toEqual([
      ["00001", "P"],
      ["00002", "Q"],
      ["00003", "R"],
      ["00004", "P"],
      ["00005", "Q"],
      ["00006", "R"]
    ])
    expect(lines.at(-2)!.slice(17, 23)).toBe("000008") // the batch's records, its header and trailer included
    expect(lines.at(-1)!.slice(23, 29)).toBe("000010")
    const read = parseRetorno(answerRemessa(remessa, 11, () => ({ movement: "02" })))
    if ("error" in read) throw new Error(read.error)
    expect(read.titles.map((t) => t.transactionId)).toEqual([sent[0]!.transactionId, sent[2]!.transactionId])
  })

  // The file header's "data/hora de geração" (144–151, 152–157) and the batch header's "data de gravação"
  // (192–199) are Brazil's: a remessa cut at 22:30 in São Paulo (01:30Z the next day) was dated tomorrow.
  it("dates the file by São Paulo's calendar and clock, not UTC's", () => {
    const at = new Date("2026-11-27T22:30:00-03:00")
    const lines = buildRemessa(BANCO_DO_BRASIL, AGREEMENT, 1, at, titles(1)).split("\r\n")
    expect(lines[0]!.slice(143, 151)).toBe("27112026")
    expect(lines[0]!.slice(151, 157)).toBe("223000")
    expect(lines[1]!.slice(191, 199)).toBe("27112026")
    // Just after midnight there: the new day, whatever UTC says.
    const early = buildRemessa(BANCO_DO_BRASIL, AGREEMENT, 1, new Date("2026-11-28T00:05:09-03:00"), titles(1))
    expect(early.slice(143, 157)).toBe("28112026000509")
  })
})

describe("the DICT key's type for Y-03", () => {
  it.each([
    ["52998224725", 1],
    ["11222333000181", 2],
    ["12ABC34501DE35", 2],
    ["+5511987654321", 3],
    ["loja@example.com", 4],
    ["7d9f0335-8dcc-4054-9bf9-0dbd61d36906", 5]
  ] as const)("%s is type %i", (key, type) => {
    expect(dictKeyType(key)).toBe(type)
  })
})
