/** Query parameters that carry credentials (CONTRACT-v1 §1: `api_token`), never logged or stored. */
const SECRET_PARAMS = /([?&](?:api_token|apiToken|api_key|token)=)[^&#]*/gi

/** The URL with every credential in its query replaced by `[REDACTED]`. */
export const redactUrl = (url: string) => url.replace(SECRET_PARAMS, "$1[REDACTED]")

export const REDACTED = "[REDACTED]"

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

const isSecretKey = (key: string) => {
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
  if (typeof value === "string") return redactPans(value)
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
const luhnNumber = (n: number) => {
  const digits = String(Math.abs(n))
  return digits.length >= 13 && digits.length <= 19 && luhn(digits)
}

/**
 * A key and its value in text that is not JSON: a JSON-like pair however broken the document around it
 * (`"cvv": "123",}`, `cvv: 123`, `'cvv':'123'`) or a form field (`cvv=123&`). The value is a quoted
 * string (cut short or not) or a run up to the next delimiter.
 */
// A bare value stops before a brace or bracket, so the pairs of an object or list under a key are
// read as pairs of their own.
const LOOSE_PAIR = /(["']?)([A-Za-z0-9_-]+)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|[^,;&{}[\]\s"']*)/g

const redactLoosePairs = (text: string) =>
  text.replace(LOOSE_PAIR, (pair, quote: string, key: string, separator: string, value: string) =>
    isSecretKey(key) && value !== "" && value !== "null" ? `${quote}${key}${quote}${separator}${REDACTED}` : pair
  )

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
