import type { FieldError } from "../../domain/errors.ts"
import { fieldName } from "./text.ts"

/**
 * What `JSON.parse` reads differently from what was written, which no schema can see afterwards
 * (docs/input.md "Numbers and keys JSON.parse would change"):
 * - a number it rounds: an integer past 2^53, more significant digits than a double holds, a magnitude
 *   that underflows to 0 or overflows to Infinity. A merchant's `metadata` would come back changed
 *   without a word; such a value is sent as a string;
 * - a key written twice in one object: `JSON.parse` keeps the last, while a proxy, a log or another
 *   parser may read the first, so the gateway could charge what nobody else saw.
 * One pass over the text, keeping the path of the value in hand; malformed JSON is left to the decoder.
 */
export const literalProblem = (text: string): FieldError | undefined => {
  // One frame per open object or array: its keys so far (objects; few, so a list) or its element's index.
  const frames: Array<{ keys: Array<string> | undefined; array: boolean; at: string | number; expectKey: boolean }> = []
  const path = () => frames.map((f) => f.at)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const top = frames[frames.length - 1]
    if (c === 34 /* " */) {
      const start = i
      let escaped = false
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 92 /* \ */) {
          escaped = true
          i++
        } else if (d === 34) break
      }
      if (top !== undefined && !top.array && top.expectKey) {
        let key: string
        try {
          key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i)
        } catch {
          return undefined
        }
        top.keys ??= []
        if (top.keys.includes(key)) {
          const field = fieldName([...path().slice(0, -1), key])
          return { field, message: `${field} is written more than once in its object; send each field once` }
        }
        top.keys.push(key)
        top.at = key
        top.expectKey = false
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      frames.push({ keys: undefined, array: c === 91, at: 0, expectKey: c === 123 })
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      frames.pop()
    } else if (c === 44 /* , */) {
      if (top === undefined) return undefined
      if (top.array) top.at = (top.at as number) + 1
      else top.expectKey = true
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i
      let exponent = false
      while (i + 1 < text.length && isNumberChar(text.charCodeAt(i + 1))) {
        i++
        exponent ||= (text.charCodeAt(i) | 32) === 101 /* e, E */
      }
      // Fifteen characters and no exponent (so at most 15 significant digits): a double writes the decimal
      // back as it was. The common case costs this test.
      if (i - start < 15 && !exponent) continue
      const literal = text.slice(start, i + 1)
      if (!readsAsWritten(literal)) {
        const field = fieldName(path())
        const sent = literal.length > 40 ? `${literal.slice(0, 40)}…` : literal
        return {
          field,
          message:
            `${field} holds a number JSON cannot carry exactly (${sent} would be read as ${Number(literal)}); ` +
            "send it as a string"
        }
      }
    }
  }
  return undefined
}

/** Digits, sign, point and exponent: the characters of a JSON number. */
const isNumberChar = (c: number) => (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46 || c === 69 || c === 101

/**
 * Whether the literal's value is the number it parses to: the literal and the shortest form of its double
 * (what JSON.stringify writes) must be the same decimal.
 */
const readsAsWritten = (literal: string) => {
  const n = Number(literal)
  if (!Number.isFinite(n)) return Number.isNaN(n) // NaN: not a number at all, left to the decoder
  return decimal(literal) === decimal(String(n))
}

/** A decimal's canonical form: sign, significant digits, exponent ("-12e3"); zero is "0" whatever its sign. */
const decimal = (text: string): string => {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)
  if (match === null) return text
  const [, sign, whole = "", fraction = "", exponent = "0"] = match
  let digits = (whole + fraction).replace(/^0+/, "")
  if (digits === "") return "0"
  let power = Number(exponent) - fraction.length
  const trimmed = digits.replace(/0+$/, "")
  power += digits.length - trimmed.length
  digits = trimmed
  return `${sign}${digits}e${power}`
}
