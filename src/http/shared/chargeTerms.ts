import { Schema } from "effect"
import {
  type ChargeTerms,
  type Discount,
  type FixedOrPercentage,
  termField,
  validateTerms
} from "../../domain/chargeTerms.ts"

/**
 * A boleto's charge terms on the wire (docs/boleto.md "Fine, interest, discounts and abatement"):
 * one shape for both interfaces, the enumerations in each one's style (v2 upper case, v1 lower case).
 * Fixed values are integer centavos; percentages are percent with at most two decimals (2 = 2 %).
 */
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

export type TermsStyle = "v1" | "v2"

const literal = (style: TermsStyle, ...names: ReadonlyArray<string>) =>
  Schema.Literal(...(style === "v2" ? names.map((n) => n.toUpperCase()) : names))

const VALUE = "FIXED: integer centavos; PERCENTAGE…: percent, at most 2 decimals (2 = 2 %)"

export const WireTerms = (style: TermsStyle) =>
  Schema.Struct({
    fine: opt(
      Schema.Struct({
        type: literal(style, "fixed", "percentage"),
        value: Schema.Number.annotations({ description: VALUE })
      }).annotations({ description: "multa: charged once when paid after the due date" })
    ),
    interest: opt(
      Schema.Struct({
        type: literal(style, "fixed_per_day", "percentage_per_day", "percentage_per_month"),
        value: Schema.Number.annotations({ description: VALUE })
      }).annotations({
        description: "juros: simple, for each calendar day after the due date; a month is 30 days (pro rata die)"
      })
    ),
    discounts: opt(
      Schema.Array(
        Schema.Struct({
          type: literal(style, "fixed", "percentage"),
          value: Schema.Number.annotations({ description: VALUE }),
          until: Schema.String.annotations({ description: "YYYY-MM-DD, inclusive, on or before the due date" })
        })
      ).annotations({
        description: "up to 3, all of one type, dates increasing, values decreasing; the earliest still ahead applies"
      })
    ),
    abatement: opt(
      Schema.Struct({
        type: literal(style, "fixed", "percentage"),
        value: Schema.Number.annotations({ description: VALUE })
      }).annotations({ description: "abatimento: always off the amount" })
    ),
    pix: opt(
      Schema.Boolean.annotations({
        description:
          "bolepix: true also issues a due-date PIX charge (cobv) with the same amount, due date and terms; " +
          "the buyer pays either the barcode or the QR code, the first payment settles (docs/boleto.md)"
      })
    )
  }).annotations({
    description:
      "Boleto charge terms (docs/boleto.md): fine, interest, discounts and abatement, as a bank registers them " +
      "(and the bolepix cobv charges them)"
  })

interface WireValue {
  readonly type: string
  readonly value: number
}

/** Either style's decoded wire terms. */
export interface WireTermsValue {
  readonly fine?: WireValue
  readonly interest?: WireValue
  readonly discounts?: ReadonlyArray<WireValue & { readonly until: string }>
  readonly abatement?: WireValue
  readonly pix?: boolean
}

/**
 * The wire terms in the domain's units, every broken field reported through `fail`; the rules that
 * need the due date are checked again when it is known (`Payments.chargeBoleto`).
 */
export const decodeTerms = (
  wire: WireTermsValue | undefined,
  prefix: string,
  amount: number,
  fail: (field: string, message: string) => void
): ChargeTerms | null => {
  if (wire === undefined) return null
  let ok = true
  const value = (at: ReadonlyArray<string | number>, w: WireValue): number => {
    const kind = w.type.toLowerCase()
    if (kind.startsWith("percentage")) {
      const bp = Math.round(w.value * 100)
      if (!Number.isFinite(w.value) || Math.abs(w.value * 100 - bp) > 1e-6 || bp <= 0) {
        ok = false
        fail(termField(prefix, [...at, "value"]), "must be a percentage greater than zero with at most 2 decimals")
      }
      return bp
    }
    if (!Number.isSafeInteger(w.value) || w.value <= 0) {
      ok = false
      fail(termField(prefix, [...at, "value"]), "must be an integer number of centavos greater than zero")
    }
    return w.value
  }
  const fp = (at: string, w: WireValue): FixedOrPercentage => ({
    kind: w.type.toLowerCase() as FixedOrPercentage["kind"],
    value: value([at], w)
  })
  const terms: ChargeTerms = {
    ...(wire.fine ? { fine: fp("fine", wire.fine) } : {}),
    ...(wire.interest
      ? {
          interest: {
            kind: wire.interest.type.toLowerCase() as NonNullable<ChargeTerms["interest"]>["kind"],
            value: value(["interest"], wire.interest)
          }
        }
      : {}),
    ...(wire.discounts
      ? {
          discounts: wire.discounts.map((d, i): Discount => ({
            kind: d.type.toLowerCase() as Discount["kind"],
            value: value(["discounts", i], d),
            until: d.until
          }))
        }
      : {}),
    ...(wire.abatement ? { abatement: fp("abatement", wire.abatement) } : {})
  }
  if (!ok) return null
  // `{ "pix": true }` alone asks for a bolepix without terms: no terms to record.
  if (Object.keys(terms).length === 0) return null
  // The due date is not known yet (a default one is computed at charge time): every other rule now.
  for (const issue of validateTerms(terms, amount, "9999-12-31")) fail(termField(prefix, issue.path), issue.message)
  return terms
}

/**
 * The terms as the interface writes them (`style`): the enumerations in its case, fixed values in centavos,
 * percentages in percent (2 = 2 %), the inverse of `decodeTerms`.
 */
export const presentTerms = (terms: ChargeTerms, style: TermsStyle) => {
  const type = (kind: string) => (style === "v2" ? kind.toUpperCase() : kind)
  const value = (kind: string, v: number) => (kind.startsWith("percentage") ? v / 100 : v)
  const one = (t: { readonly kind: string; readonly value: number }) => ({
    type: type(t.kind),
    value: value(t.kind, t.value)
  })
  return {
    ...(terms.fine ? { fine: one(terms.fine) } : {}),
    ...(terms.interest ? { interest: one(terms.interest) } : {}),
    ...(terms.discounts ? { discounts: terms.discounts.map((d) => ({ ...one(d), until: d.until })) } : {}),
    ...(terms.abatement ? { abatement: one(terms.abatement) } : {})
  }
}
