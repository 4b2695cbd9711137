import type { FieldError } from "../../domain/errors.ts"
import { findTextProblem, mayHoldBadText } from "./text.ts"

/** Deeper than any request of this API; bounds the recursion of parsing and error formatting. */
export const MAX_DEPTH = 32

/** Depth of arrays/objects in JSON text, by one pass over the characters (no recursion). */
export const jsonDepth = (text: string): number => {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) max = Math.max(max, ++depth)
    else if (c === 125 || c === 93) depth--
  }
  return max
}

/**
 * Problems of a JSON body that no field schema can report: nesting deep enough to exhaust the stack,
 * and text PostgreSQL cannot store (NUL, lone surrogates: text.ts), named by the field that holds it.
 * Malformed JSON is left to the decoder.
 */
export const bodyProblem = (text: string): FieldError | undefined => {
  if (jsonDepth(text) > MAX_DEPTH) return { field: "body", message: `body is nested deeper than ${MAX_DEPTH} levels` }
  if (!mayHoldBadText(text)) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  return findTextProblem(parsed)
}
