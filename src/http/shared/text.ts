/**
 * The one rule for text arriving in a request (docs/input.md "Text"): every string, JSON key or value,
 * path segment or query parameter, must be Unicode text PostgreSQL can store. Two things are not:
 *
 * - a lone UTF-16 surrogate (U+D800–U+DFFF not in a high-then-low pair). JSON.parse turns a `"\ud800"`
 *   escape into one; PostgreSQL refuses it in json/jsonb (a 500), and `pg` writes it to text as U+FFFD
 *   (the value silently changes);
 * - NUL (U+0000), which neither text nor jsonb can hold.
 *
 * Raw bytes that are not UTF-8 never get this far: the body is decoded strictly (body.ts), and so are
 * percent-encoded path segments and query parameters (`urlTextProblem`).
 */

/** What is wrong with a string, or undefined when it is storable text. */
export const textProblem = (text: string): string | undefined => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0) return "must not contain the NUL character (\\u0000)"
    if (c < 0xd800 || c > 0xdfff) continue
    if (c <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++
        continue
      }
    }
    return `must be Unicode text: the surrogate \\u${c.toString(16)} is not part of a pair`
  }
  return undefined
}

/** A key as it can be shown in a field name: NUL and lone surrogates written as `\uXXXX` escapes. */
const printable = (key: string) => {
  let out = ""
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i)
    const paired =
      (c >= 0xd800 && c <= 0xdbff && (key.charCodeAt(i + 1) & 0xfc00) === 0xdc00) ||
      (c >= 0xdc00 && c <= 0xdfff && (key.charCodeAt(i - 1) & 0xfc00) === 0xd800)
    out += c === 0 || (c >= 0xd800 && c <= 0xdfff && !paired) ? `\\u${c.toString(16).padStart(4, "0")}` : key[i]
  }
  return out
}

/** A field's name as the service writes it (`customer.name`, `products[0].sku`); the root is `body`. */
export const fieldName = (path: ReadonlyArray<string | number>) =>
  path.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? k : `.${k}`)).join("") || "body"

/**
 * The first string of a parsed JSON value (key or value, depth first in document order) that breaks the
 * rule, named as the service names fields (`customer.name`, `products[0].sku`, `metadata.note`), with
 * the rule it breaks. Iterative: the depth was bounded before parsing, but a stack costs nothing.
 */
export const findTextProblem = (value: unknown): { field: string; message: string } | undefined => {
  const stack: Array<[unknown, ReadonlyArray<string | number>]> = [[value, []]]
  while (stack.length > 0) {
    const [current, at] = stack.pop()!
    if (typeof current === "string") {
      const problem = textProblem(current)
      if (problem !== undefined) {
        const field = fieldName(at)
        return { field, message: `${field} ${problem}` }
      }
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], [...at, i]])
    } else if (current !== null && typeof current === "object") {
      const entries = Object.entries(current)
      for (const [key] of entries) {
        const problem = textProblem(key)
        if (problem !== undefined) {
          const field = fieldName([...at, printable(key)])
          return { field, message: `${field}: the key ${problem}` }
        }
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], [...at, entries[i]![0]]])
    }
  }
  return undefined
}

/** JSON text can only produce a NUL or a surrogate through a `\u` escape (raw ones are not UTF-8 or not JSON). */
export const mayHoldBadText = (json: string) => /\\u(?:0000|d[89a-f])/i.test(json)

const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * A percent-encoded URL part, decoded strictly: undefined when its bytes are not UTF-8 (which is how a
 * surrogate arrives in a URL: `%ED%A0%80`). A `%` not followed by two hex digits stays literal, as
 * URLSearchParams reads it; `+` is not decoded here (it cannot make text invalid).
 */
const decodeStrictly = (part: string): string | undefined => {
  const bytes: Array<number> = []
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i)
    if (c === 37 /* % */ && /^[0-9A-Fa-f]{2}$/.test(part.slice(i + 1, i + 3))) {
      bytes.push(parseInt(part.slice(i + 1, i + 3), 16))
      i += 2
    } else if (c < 0x80) bytes.push(c)
    else return undefined // Node hands the request line over as latin1: a raw byte above 0x7f
  }
  try {
    return strictUtf8.decode(new Uint8Array(bytes))
  } catch {
    return undefined
  }
}

/** Only characters U+0001–U+007F but `%`: nothing to decode and nothing to refuse. */
const isPlainUrl = (url: string) => {
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i)
    if (c === 0 || c === 37 /* % */ || c > 0x7f) return false
  }
  return true
}

const urlPartProblem = (part: string): string | undefined => {
  const decoded = decodeStrictly(part)
  return decoded === undefined ? "must be UTF-8 text once percent-decoded" : textProblem(decoded)
}

/**
 * The first path segment or query parameter of a raw request URL that breaks the rule. A path segment
 * is named by the route's parameter at its position (`id`, `hash`) when `template` (`/api/customers/:id`)
 * is known, else "path"; a query parameter by its name, or "query" when the name itself is the fault.
 */
export const urlTextProblem = (
  url: string,
  template: string | undefined
): { field: string; message: string } | undefined => {
  // Nearly every URL: ASCII with no escape and no NUL, each part its own decoding, all of it text.
  if (isPlainUrl(url)) return undefined
  const [pathname = "", search = ""] = url.split("?", 2)
  const names = template?.split("/") ?? []
  const segments = pathname.split("/")
  for (let i = 0; i < segments.length; i++) {
    const problem = urlPartProblem(segments[i]!)
    if (problem === undefined) continue
    const field = names[i]?.startsWith(":") ? names[i]!.slice(1) : "path"
    return { field, message: `${field} ${problem}` }
  }
  for (const pair of search.split("&")) {
    const eq = pair.indexOf("=")
    const [rawName, rawValue] = eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)]
    const nameProblem = urlPartProblem(rawName)
    if (nameProblem !== undefined) return { field: "query", message: `a query parameter's name ${nameProblem}` }
    const problem = urlPartProblem(rawValue)
    if (problem !== undefined) {
      const field = decodeStrictly(rawName.replace(/\+/g, " "))!
      return { field, message: `${field} ${problem}` }
    }
  }
  return undefined
}
