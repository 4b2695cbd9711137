import { type FieldError, unknownFieldMessage } from "../../domain/errors.ts"
import { literalProblem } from "./jsonLiterals.ts"
import { fieldName, findTextProblem, mayHoldBadText } from "./text.ts"

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
 * The path of the first `__proto__` key, if any. JSON.parse makes it an own property, but any code
 * that copies the object key by key (a schema decoding a free-form record such as `metadata`) would
 * set the copy's prototype instead: no request of this API declares such a field, so it is refused.
 */
const findProto = (value: unknown): string | undefined => {
  const stack: Array<[unknown, Array<string | number>]> = [[value, []]]
  while (stack.length > 0) {
    const [current, at] = stack.pop()!
    if (Array.isArray(current)) current.forEach((child, i) => stack.push([child, [...at, i]]))
    else if (current !== null && typeof current === "object") {
      for (const [key, child] of Object.entries(current)) {
        if (key === "__proto__") return fieldName([...at, key])
        stack.push([child, [...at, key]])
      }
    }
  }
  return undefined
}

/**
 * Problems of a JSON body that no field schema can report: nesting deep enough to exhaust the stack,
 * a number or a key JSON.parse would read as something else than was written (jsonLiterals.ts), a
 * `__proto__` key anywhere (even in free-form `metadata`), and text PostgreSQL cannot store (NUL,
 * lone surrogates: text.ts), named by the field that holds it. Malformed JSON is left to the decoder.
 */
export const bodyProblem = (text: string): FieldError | undefined => {
  if (jsonDepth(text) > MAX_DEPTH) return { field: "body", message: `body is nested deeper than ${MAX_DEPTH} levels` }
  const literal = literalProblem(text)
  if (literal !== undefined) return literal
  // "__proto__" may be written with escapes ("\\u005f_proto__"): any escape sends the body to the parse.
  const proto = text.includes("__proto__") || text.includes("\\u")
  if (!proto && !mayHoldBadText(text)) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  const protoField = proto ? findProto(parsed) : undefined
  if (protoField !== undefined) return { field: protoField, message: unknownFieldMessage(protoField) }
  return findTextProblem(parsed)
}
