import { describe, it, expect } from "vitest"
import fc from "fast-check"
import { buildBrCode, crc16CcittFalse, parseBrCode, type BrCodeInput } from "./brcode.ts"

// Example static BR Code from the BCB "Manual de Padrões para Iniciação do Pix".
const BCB_STATIC =
  "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
  "5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"
// Dynamic example of the manual's §6.2, as transcribed field by field in a public gist (matheusb-comp, "Exemplos de
// formato PIX").
const BCB_DYNAMIC =
  "00020101021226770014BR.GOV.BCB.PIX2555pix.example.com/qr/93598be0-1bd0-4997-83" +
  "18-81776a1d8a995204000053039865802BR5907EMPRESA6009SAO PAULO62070503***6304EEAB"

describe("crc16CcittFalse", () => {
  it("check value of CRC-16/CCITT-FALSE (catalogue of parametrised CRCs)", () => {
    expect(crc16CcittFalse("123456789")).toBe("29B1")
  })
  it("BCB example CRC is 1D3D", () => expect(crc16CcittFalse(BCB_STATIC.slice(0, -4))).toBe("1D3D"))
})

describe("parseBrCode vectors", () => {
  it("parses the BCB static example", () => {
    const r = parseBrCode(BCB_STATIC)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.code.pixKey).toBe("123e4567-e12b-12d1-a456-426655440000")
    expect(r.code.merchantName).toBe("Fulano de Tal")
    expect(r.code.merchantCity).toBe("BRASILIA")
    expect(r.code.txid).toBe("***")
    expect(r.code.dynamic).toBe(false)
    expect(r.code.amountCents).toBeUndefined()
    expect(r.code.fields.get("53")).toBe("986")
  })
  it("parses the dynamic example (upper-case GUI accepted)", () => {
    const r = parseBrCode(BCB_DYNAMIC)
    expect(r.ok && r.code.dynamic && r.code.url).toBe("pix.example.com/qr/93598be0-1bd0-4997-8318-81776a1d8a99")
  })
  it("rejects a wrong CRC and broken lengths", () => {
    expect(parseBrCode(BCB_STATIC.slice(0, -4) + "1D3E")).toEqual({ ok: false, error: "bad-crc" })
    expect(parseBrCode(BCB_STATIC.slice(0, -4) + "1d3d")).toEqual({ ok: false, error: "bad-crc" })
    expect(parseBrCode(BCB_STATIC.slice(0, -1))).toEqual({ ok: false, error: "malformed-tlv" })
    expect(parseBrCode("")).toEqual({ ok: false, error: "malformed-tlv" })
    // Static example of the manual's §6.1 as transcribed in the same gist: its CRC
    // (170E) matches, but field 62 claims 8 characters and holds 7, so it is malformed.
    const bad =
      "00020126360014BR.GOV.BCB.PIX0114+5511943214321520400005303986540566.665802BR5907EMPRESA6008BRASILIA62080503***"
    expect(crc16CcittFalse(bad + "6304")).toBe("170E")
    expect(parseBrCode(bad + "6304170E")).toEqual({ ok: false, error: "malformed-tlv" })
  })
})

describe("buildBrCode", () => {
  it("reproduces the BCB static example byte for byte", () => {
    const built = buildBrCode({
      pixKey: "123e4567-e12b-12d1-a456-426655440000",
      merchantName: "Fulano de Tal",
      merchantCity: "BRASILIA",
      txid: ""
    })
    expect(built).toBe(BCB_STATIC)
  })
  it("formats amount, strips accents, truncates name/city", () => {
    const r = parseBrCode(
      buildBrCode({
        pixKey: "a@b.com",
        merchantName: "Açaí do João Comércio de Alimentos",
        merchantCity: "São José dos Campos",
        amountCents: 1050,
        txid: "PEDIDO123"
      })
    )
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.code.fields.get("54")).toBe("10.50")
    expect(r.code.merchantName).toBe("Acai do Joao Comercio de")
    expect(r.code.merchantCity).toBe("Sao Jose dos Ca")
    expect(r.code.txid).toBe("PEDIDO123")
  })
  it("dynamic codes carry 01=12, 26-25 and txid ***", () => {
    const s = buildBrCode({ url: "pix.example.com/qr/abc", merchantName: "X", merchantCity: "Y", txid: "ignored" })
    expect(s.startsWith("000201010212")).toBe(true)
    const r = parseBrCode(s)
    expect(r.ok && r.code.txid).toBe("***")
  })
  it("rejects bad input", () => {
    const base = { merchantName: "A", merchantCity: "B", txid: "" }
    expect(() => buildBrCode(base)).toThrow(RangeError)
    expect(() => buildBrCode({ ...base, pixKey: "k", url: "u" })).toThrow(RangeError)
    expect(() => buildBrCode({ ...base, pixKey: "k", txid: "has-dash" })).toThrow(RangeError)
    expect(() => buildBrCode({ ...base, pixKey: "k", txid: "A".repeat(26) })).toThrow(RangeError)
    expect(() => buildBrCode({ ...base, pixKey: "k", amountCents: 0 })).toThrow(RangeError)
    expect(() => buildBrCode({ ...base, pixKey: "k".repeat(78) })).toThrow(RangeError)
    expect(() => buildBrCode({ ...base, pixKey: "k", merchantName: "\u0301\u0301" })).toThrow(RangeError)
  })
})

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 40
})
const clean = (max: number) =>
  fc
    .string({
      unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .-"),
      minLength: 1,
      maxLength: max
    })
    .filter((s) => s.trim() === s && s.length > 0)
const alnum = fc.string({
  unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
  minLength: 1,
  maxLength: 25
})
const input: fc.Arbitrary<BrCodeInput> = fc
  .record({
    dynamic: fc.boolean(),
    target: printable,
    merchantName: clean(25),
    merchantCity: clean(15),
    amountCents: fc.option(fc.integer({ min: 1, max: 999_999_999_999 }), { nil: undefined }),
    txid: fc.oneof(alnum, fc.constant(""))
  })
  .map(({ dynamic, target, amountCents, ...rest }) => ({
    ...rest,
    ...(dynamic ? { url: target } : { pixKey: target }),
    ...(amountCents !== undefined ? { amountCents } : {})
  }))

describe("BR Code properties", () => {
  it("build → parse round trip", () => {
    fc.assert(
      fc.property(input, (i) => {
        const r = parseBrCode(buildBrCode(i))
        if (!r.ok) return false
        const c = r.code
        const txid = i.url !== undefined || i.txid === "" ? "***" : i.txid
        return (
          c.merchantName === i.merchantName &&
          c.merchantCity === i.merchantCity &&
          c.amountCents === i.amountCents &&
          c.txid === txid &&
          c.pixKey === i.pixKey &&
          c.url === i.url
        )
      })
    )
  })
  it("any single-character change makes parsing fail", () => {
    fc.assert(
      fc.property(input, fc.nat(), fc.integer({ min: 0x20, max: 0x7e }), (i, j, ch) => {
        const s = buildBrCode(i)
        const k = j % s.length
        fc.pre(s.charCodeAt(k) !== ch)
        return !parseBrCode(s.slice(0, k) + String.fromCharCode(ch) + s.slice(k + 1)).ok
      }),
      { numRuns: 2000 }
    )
  })
  it("every TLV length matches its value, and the output is printable ASCII", () => {
    const check = (s: string): boolean => {
      for (let p = 0; p < s.length;) {
        const len = Number(s.slice(p + 2, p + 4))
        const value = s.slice(p + 4, p + 4 + len)
        if (!/^\d{4}$/.test(s.slice(p, p + 4)) || value.length !== len) return false
        const id = Number(s.slice(p, p + 2))
        if ((id === 26 || id === 62) && !check(value)) return false
        p += 4 + len
      }
      return true
    }
    fc.assert(
      fc.property(input, (i) => {
        const s = buildBrCode(i)
        return check(s) && /^[\x20-\x7E]+$/.test(s)
      })
    )
  })
  it("parse is total on arbitrary strings", () => {
    fc.assert(fc.property(fc.string(), (s) => typeof parseBrCode(s).ok === "boolean"))
  })
})
