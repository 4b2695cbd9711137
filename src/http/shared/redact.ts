import { detectBrand, luhnValid } from "../../domain/card.ts"

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

/** A URL component as the service reads it: percent-decoded, and in a query `+` read as a space. */
const decodeComponent = (raw: string, plusIsSpace: boolean) => {
  if (!/[%+]/.test(raw)) return raw
  try {
    return decodeURIComponent(plusIsSpace ? raw.replace(/\+/g, " ") : raw)
  } catch {
    return raw
  }
}

/**
 * A path segment, a query parameter's name or value without a card number: the digits that make one replaced
 * where the text shows them as they are, the whole component where only its decoding shows one
 * (`4556%203600%200000%201014`, `4556+3600+…`).
 */
const redactComponent = (raw: string, plusIsSpace: boolean) => {
  const out = redactPans(raw)
  const decoded = decodeComponent(out, plusIsSpace)
  return decoded !== out && redactPans(decoded) !== decoded ? REDACTED : out
}

/** The scheme and authority of an absolute URL (a span's `url.full`): a host and port are no card number. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i

/**
 * The URL without a card number in its path, its query's names and values, or its fragment, each read as
 * decoded (`redactComponent`); a number split over path segments (`/4556/3600/0000/1014`) too, `/` being one
 * of the separators `redactPans` reads.
 */
export const redactUrlPans = (raw: string) => {
  const origin = ORIGIN.exec(raw)?.[0] ?? ""
  const rest = raw.slice(origin.length)
  const hash = rest.indexOf("#")
  const beforeHash = hash < 0 ? rest : rest.slice(0, hash)
  const start = beforeHash.indexOf("?")
  const path = start < 0 ? beforeHash : beforeHash.slice(0, start)
  const segments = path.split("/").map((segment) => redactComponent(segment, false))
  let out = origin + redactPans(segments.join("/"))
  if (start >= 0) {
    const pairs = beforeHash
      .slice(start + 1)
      .split("&")
      .map((pair) => {
        const eq = pair.indexOf("=")
        if (eq < 0) return redactComponent(pair, true)
        return `${redactComponent(pair.slice(0, eq), true)}=${redactComponent(pair.slice(eq + 1), true)}`
      })
    out += `?${pairs.join("&")}`
  }
  return hash < 0 ? out : `${out}#${redactComponent(rest.slice(hash + 1), false)}`
}

/**
 * The URL as the request log, the access log and the spans keep it: every credential in its query replaced
 * by `[REDACTED]` (the names matched as decoded), the token of a checkout or document path, and any card
 * number in the path, the query's names and values or the fragment (`redactUrlPans`).
 */
export const redactUrl = (raw: string) => {
  const url = raw.replace(CREDENTIAL_PATHS, `$1${REDACTED}`)
  const start = url.indexOf("?")
  if (start < 0) return redactUrlPans(url)
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
  return redactUrlPans(`${url.slice(0, start + 1)}${query.join("&")}${url.slice(end)}`)
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

/**
 * What may stand between the digits of a card number as people write it: white space (NBSP and the other
 * Unicode spaces included), dots, dashes (ASCII and Unicode), slashes, underscores, and the invisible ones
 * (soft hyphen, zero-width space and joiners, BOM).
 */
const SEPARATOR = String.raw`[\s./_\-\u00AD\u2010-\u2015\u2212\u200B-\u200D\u2060\uFEFF]`
/** A UUID (8-4-4-4-12 hex digits): the ids of the gateway and of most clients, never a card number. */
const HEX = "[0-9A-Fa-f]"
const UUID = `(?<!${HEX})${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}(?!${HEX})`
/**
 * A UUID (group 1, kept whole: its digits separated by dashes would read as a run), or a run of digits (of
 * any script: `\p{Nd}`, fullwidth `４５５６` as well) with at most three separators between two of them. Each
 * repetition takes a digit and a UUID is at most 36 characters, so the pattern runs in linear time on any text.
 */
const RUN = new RegExp(String.raw`(${UUID})|\p{Nd}(?:${SEPARATOR}{0,3}\p{Nd})*`, "gu")
const DIGIT = /\p{Nd}/u
const PLAIN_DIGITS = /^[0-9]+$/
/** Shortest and longest card numbers (ISO/IEC 7812). */
const MIN_PAN = 13
const MAX_PAN = 19
/**
 * Numbers written in a shape no card number has, kept whole: a CNPJ (`11.222.333/0001-81`, 14 digits), a
 * boleto's typeable line as banks print it (`23793.38128 60000.000003 00000.000401 1 84340000010000`) and a
 * collection slip's (4 blocks of 11 digits and a check digit).
 */
const NOT_A_CARD = [
  /^\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}$/,
  /^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/,
  /^\d{11}[- ]?\d(?: \d{11}[- ]?\d){3}$/
]

const digitValues = new Map<number, number>()
/**
 * A decimal digit's value, whatever its script: Unicode's decimal digits come in blocks of ten, 0 to 9 in
 * order (a promise of its stability policy), so the value is the distance to the block's start, modulo 10.
 */
const digitValue = (code: number) => {
  if (code >= 48 && code <= 57) return code - 48
  let value = digitValues.get(code)
  if (value === undefined) {
    let start = code
    while (DIGIT.test(String.fromCodePoint(start - 1))) start--
    value = (code - start) % 10
    digitValues.set(code, value)
  }
  return value
}

const doubled = (d: number) => (d * 2 > 9 ? d * 2 - 9 : d * 2)

/**
 * Whether some 13 to 19 consecutive digits of `digits[from, to)` that begin and end on the edges of its groups
 * pass Luhn: a card number is written whole, alone or in groups, never starting or ending inside a group, so a
 * 16-digit reference is tried once (one in ten passes, as it always did), not in its ten windows (where most
 * would). Prefix sums per parity, of the digits as they are and as Luhn doubles them, give each window's sum in
 * constant time: the digit at `k` is doubled in a window ending at `j` when `k` and `j - 1` differ in parity.
 */
const hasLuhnWindow = (digits: Uint8Array, groups: Int32Array, from: number, to: number) => {
  const n = to - from
  const plain = [new Int32Array(n + 1), new Int32Array(n + 1)]
  const double = [new Int32Array(n + 1), new Int32Array(n + 1)]
  for (let k = 0; k < n; k++) {
    const d = digits[from + k]!
    const p = k % 2
    plain[p]![k + 1] = plain[p]![k]! + d
    double[p]![k + 1] = double[p]![k]! + doubled(d)
    plain[1 - p]![k + 1] = plain[1 - p]![k]!
    double[1 - p]![k + 1] = double[1 - p]![k]!
  }
  // A group edge before digit k (relative): the first digit, or one of another group than the digit before it.
  const edge = (k: number) => k === 0 || k === n || groups[from + k - 1] !== groups[from + k]
  for (let j = MIN_PAN; j <= n; j++) {
    if (!edge(j)) continue
    const kept = (j - 1) % 2
    for (let i = Math.max(0, j - MAX_PAN); i <= j - MIN_PAN; i++) {
      if (!edge(i)) continue
      const sum = plain[kept]![j]! - plain[kept]![i]! + double[1 - kept]![j]! - double[1 - kept]![i]!
      if (sum % 10 === 0) return true
    }
  }
  return false
}

/** A run's digits (their values), where each starts and ends in it, and its parts that may hold a card number. */
interface Parts {
  readonly digits: Uint8Array
  /** The group (a stretch of digits between separators) of each digit. */
  readonly groups: Int32Array
  readonly starts: Int32Array
  readonly ends: Int32Array
  /** [from, to) in `digits`: at least 13 digits, not in a shape `NOT_A_CARD` knows. */
  readonly parts: ReadonlyArray<readonly [number, number]>
}

/**
 * The parts of a run of digits and separators that may hold a card number. The run is split where a group of
 * more than 19 digits stands without a separator (a boleto's 47 or 48-digit line, a long reference): no card
 * number is written so, and such a group is no part of one, since one in ten of its 16-digit windows would
 * pass Luhn. A part runs from its first digit to its last.
 */
const partsOf = (run: string): Parts | undefined => {
  // One group of plain digits (a boleto line, a long reference): too long, as a whole, to be a card number.
  if (run.length > MAX_PAN && PLAIN_DIGITS.test(run)) return undefined
  const digits = new Uint8Array(run.length)
  const starts = new Int32Array(run.length)
  const ends = new Int32Array(run.length)
  const groups = new Int32Array(run.length)
  const groupLength: Array<number> = []
  let n = 0
  let afterSeparator = true
  for (let i = 0; i < run.length;) {
    const code = run.codePointAt(i)!
    const width = code > 0xffff ? 2 : 1
    if ((code >= 48 && code <= 57) || (code > 127 && DIGIT.test(String.fromCodePoint(code)))) {
      if (afterSeparator) groupLength.push(0)
      afterSeparator = false
      groupLength[groupLength.length - 1]!++
      digits[n] = digitValue(code)
      starts[n] = i
      ends[n] = i + width
      groups[n++] = groupLength.length - 1
    } else afterSeparator = true
    i += width
  }
  if (n < MIN_PAN) return undefined
  const inLongGroup = (k: number) => groupLength[groups[k]!]! > MAX_PAN
  const parts: Array<readonly [number, number]> = []
  for (let from = 0; from < n;) {
    if (inLongGroup(from)) {
      from++
      continue
    }
    let to = from
    while (to < n && !inLongGroup(to)) to++
    const text = run.slice(starts[from], ends[to - 1])
    if (to - from >= MIN_PAN && !NOT_A_CARD.some((shape) => shape.test(text))) parts.push([from, to])
    from = to
  }
  return { digits, groups, starts, ends, parts }
}

/**
 * A run of digits and separators with every part that may hold a card number (`partsOf`) replaced by
 * `[REDACTED]` when any 13 to 19 consecutive digits of it pass Luhn: the part goes whole, so a card number
 * written with the expiry or the CVV after it (`4556 3600 0000 1014 12/30`, `4556360000001014 987`) goes
 * with them.
 */
const redactRun = (run: string) => {
  const found = partsOf(run)
  if (found === undefined) return run
  const { digits, ends, groups, parts, starts } = found
  let out = ""
  let copied = 0
  for (const [from, to] of parts) {
    if (!hasLuhnWindow(digits, groups, from, to)) continue
    out += run.slice(copied, starts[from]) + REDACTED
    copied = ends[to - 1]!
  }
  return copied === 0 ? run : out + run.slice(copied)
}

/**
 * Text with every card number in it replaced by `[REDACTED]`, however it is written (`redactRun`): grouped by
 * spaces, dots, dashes or slashes, followed by its expiry or CVV, in another script's digits. A UUID, a
 * CNPJ and a boleto's line are kept. Most texts (a name, an e-mail) hold no run long enough to be one.
 */
export const redactPans = (text: string) =>
  text.replace(RUN, (run, uuid: string | undefined) =>
    uuid !== undefined || run.length < MIN_PAN ? run : redactRun(run)
  )

/** An API key (`sk_live_…`, `sk_test_…`), a webhook secret (`whsec_…`) or a card token (`card_…`). */
const SECRET_VALUE = /(?:^|[^A-Za-z0-9])(?:sk_(?:live|test)_|whsec_|card_[A-Za-z0-9_-]{43})/

/**
 * Whether a value holds what the gateway's copies never keep: a card number as `redactPans` finds one, or
 * one of the gateway's secrets. An X-Request-Id that does is replaced; a header's value in a span redacted.
 */
export const holdsSecret = (value: string) => SECRET_VALUE.test(value) || redactPans(value) !== value

/** A card number the gateway takes: 16 digits of a brand it knows (Visa, Mastercard, Elo) that pass Luhn. */
const chargeable = (digits: Uint8Array, from: number, to: number) => {
  for (let i = from; i + 16 <= to; i++) {
    const pan = Array.from(digits.subarray(i, i + 16)).join("")
    if (luhnValid(pan) && detectBrand(pan) !== null) return true
  }
  return false
}

/**
 * Whether a value the client chose as a key (an Idempotency-Key) is refused for what it holds: one of the
 * gateway's secrets, or a card number the gateway takes (16 consecutive digits of a run, separators allowed,
 * of a brand it knows, passing Luhn). Narrower than `holdsSecret`, which would refuse a key holding any
 * 13-digit number that passes Luhn (a millisecond timestamp, one in ten): what else such a key holds is
 * redacted where it is logged (`redactPans`).
 */
export const holdsCardOrSecret = (value: string) => {
  if (SECRET_VALUE.test(value)) return true
  for (const [run, uuid] of value.matchAll(RUN)) {
    if (uuid !== undefined || run.length < 16) continue
    const found = partsOf(run)
    if (found?.parts.some(([from, to]) => chargeable(found.digits, from, to))) return true
  }
  return false
}

const redactValue = (value: unknown): unknown => {
  // A string may hold a document of its own (a body encoded twice, a `metadata` note): its pairs too, when it
  // has a pair's separator at all (most values, a name or an e-mail, have none: no pattern runs on them).
  if (typeof value === "string")
    return redactPans(value.includes(":") || value.includes("=") ? redactLoosePairs(value) : value)
  if (typeof value === "number") return Number.isInteger(value) && luhnNumber(value) ? REDACTED : value
  if (Array.isArray(value)) return value.map(redactValue)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    // A key may be a card number too (`{"4556…": 1}`): keys are text like values.
    for (const [key, inner] of Object.entries(value)) {
      out[redactPans(key)] = isSecretKey(key) && inner !== null ? REDACTED : redactValue(inner)
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
  return digits.length >= 13 && digits.length <= 19 && (!Number.isSafeInteger(n) || luhnValid(digits))
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
