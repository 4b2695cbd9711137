/**
 * `toCentavos` reads an API Pix amount exactly. It split on "." and added the fraction digits as a whole number,
 * so a fraction of one digit was read as centavos ("0.1" → 1, not 10) and an amount with no fraction was NaN.
 * Latent: the adapter calls it only on strings the `Valor` schema (`^\d{1,10}\.\d{2}$`) accepted.
 */
import { describe, expect, it } from "vitest"
import { toCentavos, toValor } from "./wire.ts"

describe("toCentavos reads every decimal amount to the centavo", () => {
  it.each([
    ["0.1", 10],
    ["1234.5", 123_450],
    ["10", 1_000],
    ["0.30", 30],
    ["10.00", 1_000]
  ])("%s → %i centavos", (valor, centavos) => {
    expect(toCentavos(valor)).toBe(centavos)
  })

  it("is the inverse of toValor (which always writes two decimals)", () => {
    for (const c of [1, 10, 99, 100, 101, 123_450, 999_999_999_999]) expect(toCentavos(toValor(c))).toBe(c)
  })

  it("refuses what is not an amount rather than guess", () => {
    for (const valor of ["1.234", "-1.00", "1e2", "", ".50", "1,00"]) expect(() => toCentavos(valor), valor).toThrow()
  })
})
