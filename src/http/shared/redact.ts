export const REDACTED = "[REDACTED]"

/** Query parameters that carry credentials (CONTRACT-v1 §1: `api_token`), never logged or stored. */
const SECRET_PARAMS = new Set(["api_token", "apitoken", "api_key", "token"])

/**
 * A parameter's name as the service reads it: `URLSearchParams` decodes names as well as values, so
 * `api%5Ftoken` authenticates as `api_token` does (v1/securityLive.ts) and must be hidden as it is.
 */
const isSecretParam = (raw: string) => {
  let name = raw
  if (/[%+]/.test(raw)) {
    try {
      name = decodeURIComponent(raw.replace(/\+/g, " "))
    } catch {
      // Not valid percent-encoding: URLSearchParams keeps such a name as it is.
    }
  }
  return SECRET_PARAMS.has(name.toLowerCase())
}

/**
 * Paths whose segment is the credential of the page it names (docs/checkout.md: the checkout's token is "the
 * only credential"; a boleto's PDF and a PIX QR code by their document token): the hosted checkout and the
 * documents. A payment link's id is not one: it is meant to be shared.
 */
const CREDENTIAL_PATHS =
  /^((?:[a-z][a-z0-9+.-]*:\/\/[^/?#]*)?(?:\/checkout\/(?!assets\/)|\/documents\/(?:pix|boleto)\/))[^/?#]+/i

/**
 * The URL with every credential in its query replaced by `[REDACTED]`, the names matched as decoded, and the
 * token of a checkout or document path.
 */
export const redactUrl = (raw: string) => {
  const url = raw.replace(CREDENTIAL_PATHS, `$1${REDACTED}`)
  const start = url.indexOf("?")
  if (start < 0) return url
  const hash = url.indexOf("#", start)
  const end = hash < 0 ? url.length : hash
  const query = url
    .slice(start + 1, end)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=")
      const name = eq < 0 ? pair : pair.slice(0, eq)
      return isSecretParam(name) ? `${name}=${REDACTED}` : pair
    })
  return `${url.slice(0, start + 1)}${query.join("&")}${url.slice(end)}`
}

/**
 * Keys whose value is a secret wherever they appear in a body (compared lower-cased, without `_` and
 * `-`): card numbers, security codes, card and API tokens, secrets, passwords. `number` is a card's
 * (v1 `card.number`); an address's `number` is short digits and stays readable through the Luhn rule below
 * only when it is not under a card, so `number` is redacted everywhere: an address number is no loss.
 */
const SECRET_KEYS = new Set([
  "number",
  "cardnumber",
  "pan",
  "cvv",
  "cvc",
  "cvv2",
  "securitycode",
  "token",
  "cardtoken",
  "apitoken",
  "apikey",
  "accesstoken",
  "secret",
  "password",
  "fullkey",
  "expiry",
  "expmonth",
  "expyear",
  "expirationdate"
])

/**
 * Also any key that contains one of these (`cardSecurityCode`, `card_cvv`, `webhookSecret`, v2's
 * `cardExpirationMonth` and the tokenize body's `expirationYear`, …).
 */
const SECRET_PARTS = new RegExp(
  [
    ...["cvv", "cvc", "securitycode", "cardnumber", "password", "secret", "token", "apikey", "fullkey"],
    ...["expirationmonth", "expirationyear", "expirationdate", "expmonth", "expyear"]
  ].join("|")
)

export const isSecretKey = (key: string) => {
  const k = key.toLowerCase().replace(/[_-]/g, "")
  return SECRET_KEYS.has(k) || SECRET_PARTS.test(k)
}

const luhn = (digits: string) => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** 13–19 digits, spaces or dashes between them allowed, that pass Luhn: a card number wherever it hides. */
const PAN_LIKE = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g
const redactPans = (text: string) => text.replace(PAN_LIKE, (run) => (luhn(run.replace(/[ -]/g, "")) ? REDACTED : run))

const redactValue = (value: unknown): unknown => {
  // A string may hold a document of its own (a body encoded twice, a `metadata` note): its pairs too, when it
  // has a pair's separator at all (most values, a name or an e-mail, have none: no pattern runs on them).
  if (typeof value === "string")
    return redactPans(value.includes(":") || value.includes("=") ? redactLoosePairs(value) : value)
  if (typeof value === "number") return Number.isInteger(value) && luhnNumber(value) ? REDACTED : value
  if (Array.isArray(value)) return value.map(redactValue)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) {
      out[key] = isSecretKey(key) && inner !== null ? REDACTED : redactValue(inner)
    }
    return out
  }
  return value
}
// Past 2^53 a JSON number no longer holds the digits it was sent with (4111111111111111111 parses as
// 4111111111111111000): Luhn cannot be checked on what is left, which still shows the first 16 digits of a
// 19-digit card number. A card-number-long integer that large is taken for one.
const luhnNumber = (n: number) => {
  const digits = String(Math.abs(n))
  return digits.length >= 13 && digits.length <= 19 && (!Number.isSafeInteger(n) || luhn(digits))
}

/**
 * A key and its value in text that is not JSON: a JSON-like pair however broken the document around it
 * (`"cvv": "123",}`, `cvv: 123`, `'cvv':'123'`) or a form field (`cvv=123&`, `card[cvv]=123`,
 * `card%5Bcvv%5D=123`). The value is a quoted string (cut short or not) or a run up to the next
 * delimiter; a bare value stops before a brace or bracket, so the pairs of an object or list under a key
 * are read as pairs of their own.
 */
// A key starts where no key character precedes it and has at most 64 characters: a long run of them (a
// 1 MiB body of letters) is tried once, not from each of its positions (which would take quadratic time).
const KEY =
  String.raw`(["']?)((?:\[|%5B)?)(?:(?<=%5B)|(?<![A-Za-z0-9_-]))` +
  String.raw`([A-Za-z0-9_-]{1,64})\1((?:\]|%5D)?)(\s*[:=]\s*)`
const LOOSE_PAIR = new RegExp(KEY + String.raw`("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|[^,;&{}[\]\s"']*)`, "gi")
/** A key before a list or an object (`"cvv": ["123"]`), the group itself not taken. */
const KEY_OF_GROUP = new RegExp(KEY + String.raw`(?=[[{])`, "gi")

/** Where the list or object that starts at `i` ends (after its closing bracket), or the text's end. */
const groupEnd = (text: string, i: number) => {
  let depth = 0
  let quote: string | null = null
  for (; i < text.length; i++) {
    const c = text[i]
    if (quote !== null) {
      if (c === "\\") i++
      else if (c === quote) quote = null
    } else if (c === '"' || c === "'") quote = c
    else if (c === "[" || c === "{") depth++
    else if ((c === "]" || c === "}") && --depth === 0) return i + 1
  }
  return text.length
}

const redactLoosePairs = (text: string) => {
  // A list or object under a secret key goes whole, however deep; under any other key its pairs are read.
  let grouped = ""
  let from = 0
  for (const m of text.matchAll(KEY_OF_GROUP)) {
    if (m.index < from || !isSecretKey(m[3]!)) continue
    const start = m.index + m[0].length
    grouped += text.slice(from, start) + REDACTED
    from = groupEnd(text, start)
  }
  grouped += text.slice(from)
  return grouped.replace(
    LOOSE_PAIR,
    (pair, quote: string, open: string, key: string, close: string, sep: string, value: string) =>
      isSecretKey(key) && value !== "" && value !== "null"
        ? `${quote}${open}${key}${quote}${close}${sep}${REDACTED}`
        : pair
  )
}

/**
 * A request body as the request log keeps it (docs/webhooks.md "Request log"): every value under a secret
 * key replaced by `[REDACTED]`, and any card number elsewhere too. A body that is not JSON (a trailing
 * comma, a form, a body cut short) keeps its text, so the merchant can see what was wrong with it, with
 * the value of every secret-looking key and every card number replaced: the request log runs after
 * authentication, before the body is decoded, so a malformed card charge reaches it whole. Never stores
 * what it removed.
 */
export const redactBody = (text: string): string => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return redactPans(redactLoosePairs(text))
  }
  return JSON.stringify(redactValue(parsed))
}
