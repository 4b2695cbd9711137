import { describe, it, expect } from "vitest"
import fc from "fast-check"
import * as independent from "cpf-cnpj-validator"
import {
  cnpjCheckDigits,
  cpfCheckDigits,
  documentType,
  isValidBuyerDocument,
  isValidCnpj,
  isValidCpf,
  normalizeDocument
} from "./document.ts"

const digits = (n: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: n, maxLength: n })
const allSame = (s: string) => /^(\d)\1*$/.test(s)
const mutate = (s: string, i: number, d: number) => s.slice(0, i) + String(d) + s.slice(i + 1)

describe("CPF", () => {
  // Widely published examples (Receita's algorithm worked by hand in many tutorials).
  it.each(["52998224725", "11144477735"])("accepts %s", (cpf) => {
    expect(isValidCpf(cpf)).toBe(true)
    expect(cpfCheckDigits(cpf.slice(0, 9))).toBe(cpf.slice(9))
  })
  it.each([
    "52998224724",
    "11144477736",
    "11111111111",
    "00000000000",
    "5299822472",
    "529982247250",
    "529.982.247-25",
    "5299822472a"
  ])("rejects %s", (cpf) => expect(isValidCpf(cpf)).toBe(false))
  it("throws on a malformed base", () => expect(() => cpfCheckDigits("12345678")).toThrow(RangeError))

  it("any 9 digits plus computed check digits is valid unless all the same digit", () => {
    fc.assert(fc.property(digits(9), (b) => isValidCpf(b + cpfCheckDigits(b)) === !allSame(b + cpfCheckDigits(b))))
  })

  // Mod 11 with "remainder 0 or 1 → 0" collapses two remainders into one DV, so
  // NOT every single-digit change is caught: 44428119208 and 54428119208 are both
  // valid (first digit ±1 moves sum1 by ∓1 mod 11 and sum2 by 11 ≡ 0). A change
  // can only slip through when the first check digit is 0; otherwise it is caught.
  it("a known pair differing in one digit is valid on both sides (mod-11 collapse)", () => {
    expect(isValidCpf("44428119208")).toBe(true)
    expect(isValidCpf("54428119208")).toBe(true)
  })
  it("single-digit changes are detected whenever the first check digit is not 0", () => {
    fc.assert(
      fc.property(digits(9), fc.nat(10), fc.integer({ min: 1, max: 9 }), (b, i, k) => {
        const cpf = b + cpfCheckDigits(b)
        fc.pre(isValidCpf(cpf))
        const m = mutate(cpf, i, (Number(cpf[i]) + k) % 10)
        return !isValidCpf(m) || cpf[9] === "0"
      }),
      { numRuns: 2000 }
    )
  })
  it("changing either check digit is always detected", () => {
    fc.assert(
      fc.property(digits(9), fc.integer({ min: 9, max: 10 }), fc.integer({ min: 1, max: 9 }), (b, i, k) => {
        const cpf = b + cpfCheckDigits(b)
        return !isValidCpf(mutate(cpf, i, (Number(cpf[i]) + k) % 10))
      })
    )
  })
})

describe("CNPJ", () => {
  it.each(["11222333000181", "11444777000161"])("accepts %s", (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(true)
    expect(cnpjCheckDigits(cnpj.slice(0, 12))).toBe(cnpj.slice(12))
  })
  it.each([
    "11222333000182",
    "11444777000160",
    "00000000000000",
    "11111111111111",
    "11.222.333/0001-81",
    "1122233300018"
  ])("rejects %s", (cnpj) => expect(isValidCnpj(cnpj)).toBe(false))
  it("any 12 digits plus computed check digits is valid unless all the same digit", () => {
    fc.assert(fc.property(digits(12), (b) => isValidCnpj(b + cnpjCheckDigits(b)) === !allSame(b + cnpjCheckDigits(b))))
  })
  it("single-digit changes are detected whenever the first check digit is not 0", () => {
    fc.assert(
      fc.property(digits(12), fc.nat(13), fc.integer({ min: 1, max: 9 }), (b, i, k) => {
        const c = b + cnpjCheckDigits(b)
        fc.pre(isValidCnpj(c))
        return !isValidCnpj(mutate(c, i, (Number(c[i]) + k) % 10)) || c[12] === "0"
      }),
      { numRuns: 2000 }
    )
  })
})

describe("isValidBuyerDocument", () => {
  it("accepts CPF or CNPJ, nothing else", () => {
    expect(isValidBuyerDocument("52998224725")).toBe(true)
    expect(isValidBuyerDocument("11222333000181")).toBe(true)
    expect(isValidBuyerDocument("")).toBe(false)
    expect(isValidBuyerDocument("529982247251")).toBe(false)
  })
  it("is total on arbitrary strings", () => {
    fc.assert(fc.property(fc.string(), (s) => typeof isValidBuyerDocument(s) === "boolean"))
  })
})

describe("alphanumeric CNPJ (IN RFB 2.229/2024)", () => {
  it("accepts the Receita Federal's published example 12.ABC.345/01DE-35 and its check digits", () => {
    expect(cnpjCheckDigits("12ABC34501DE")).toBe("35")
    expect(isValidCnpj(normalizeDocument("12.ABC.345/01DE-35"))).toBe(true)
    expect(isValidCnpj(normalizeDocument("12.abc.345/01de-35"))).toBe(true)
    expect(documentType("12ABC34501DE35")).toBe("cnpj")
    expect(isValidBuyerDocument("12ABC34501DE35")).toBe(true)
  })

  it("values each character as ASCII − 48: 'A' is 17, so the numeric CNPJ keeps its digits", () => {
    expect(cnpjCheckDigits("112223330001")).toBe("81")
    for (const bad of ["12ABC34501DE36", "12ABC34501DEA5", "12ABC34501D#35", "12ABC34501DE3", "00000000000000"]) {
      expect(isValidCnpj(bad), bad).toBe(false)
    }
  })

  const alnum = fc.constantFrom(..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".split(""))
  it("agrees with the independent npm validator cpf-cnpj-validator on random bases", () => {
    fc.assert(
      fc.property(fc.array(alnum, { minLength: 12, maxLength: 12 }), fc.integer({ min: 0, max: 99 }), (chars, dv) => {
        const base = chars.join("")
        const right = base + cnpjCheckDigits(base)
        const other = base + String(dv).padStart(2, "0")
        expect(isValidCnpj(right)).toBe(independent.cnpj.isValid(right))
        expect(isValidCnpj(other)).toBe(independent.cnpj.isValid(other))
      })
    )
  })

  it("validates what cpf-cnpj-validator generates, numeric and alphanumeric", () => {
    for (let i = 0; i < 200; i++) {
      const generated = independent.cnpj.generate()
      expect(isValidCnpj(normalizeDocument(generated)), generated).toBe(true)
    }
  })
})
