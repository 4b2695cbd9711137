import { Either, Schema } from "effect"

// The rules engine of CONTRACT-v1 §9, as pure functions: the adapter gathers the signals (counters,
// the account's history) and this file turns them into a score, a decision and the names of the rules
// that fired. Nothing here reads a clock, a database or the environment.

/** The weighted rules, in the order their names appear in `reason`. */
export const RULES = [
  "card_velocity",
  "document_velocity",
  "amount_above_usual",
  "holder_name_mismatch",
  "disposable_email",
  "private_ip"
] as const
export type RuleName = (typeof RULES)[number]
export type Weights = Readonly<Record<RuleName, number>>

/**
 * Defaults chosen so that no single ordinary rule reaches review (60) on its own except in pairs: a
 * velocity burst plus a second signal does. `private_ip` weighs least: documentation and carrier-grade
 * NAT addresses reach merchants through proxies and sandboxes more often than fraud does.
 */
export const DEFAULT_WEIGHTS: Weights = {
  card_velocity: 40,
  document_velocity: 30,
  amount_above_usual: 30,
  holder_name_mismatch: 20,
  disposable_email: 30,
  private_ip: 10
}

/** The sandbox's test cards decide by themselves (CONTRACT §7); they are named in `reason` too. */
export const FORCED_REJECT = "sandbox_fraud_card"
export const FORCED_REVIEW = "sandbox_review_card"
/** The least score of a forced rejection. */
export const FORCED_REJECT_SCORE = 95

export interface AntifraudSettings {
  readonly weights: Weights
  /** Scores from here are reviewed (default 60). */
  readonly reviewAt: number
  /** Scores from here are rejected (default 80). */
  readonly rejectAt: number
  /** card_velocity fires when one card is charged more than `max` times in a window of `windowSeconds`. */
  readonly cardVelocity: { readonly max: number; readonly windowSeconds: number }
  readonly documentVelocity: { readonly max: number; readonly windowSeconds: number }
  /**
   * amount_above_usual fires when the amount exceeds `factor` × the account's average paid card amount,
   * once the account has at least `minHistory` paid card charges.
   */
  readonly amount: { readonly factor: number; readonly minHistory: number }
}

export const DEFAULT_SETTINGS: AntifraudSettings = {
  weights: DEFAULT_WEIGHTS,
  reviewAt: 60,
  rejectAt: 80,
  cardVelocity: { max: 10, windowSeconds: 3600 },
  documentVelocity: { max: 10, windowSeconds: 3600 },
  amount: { factor: 10, minHistory: 5 }
}

export const Decision = Schema.Literal("approve", "review", "reject")
export type Decision = typeof Decision.Type

/**
 * The analysis kept with the transaction (the `antifraud` jsonb column). Rows written before the
 * rules engine said "deny" and had no status: they decode as a completed "reject".
 */
export const AntifraudAnalysis = Schema.Struct({
  decision: Schema.transform(Schema.Literal("approve", "review", "reject", "deny"), Decision, {
    strict: true,
    decode: (d) => (d === "deny" ? "reject" : d),
    encode: (d) => d
  }),
  /** 0 (safe) to 100 (fraud). */
  score: Schema.Number,
  reason: Schema.NullOr(Schema.String),
  /** `in_review` until a person decides a `review`; every other analysis is `completed`. */
  status: Schema.optionalWith(Schema.Literal("completed", "in_review"), { default: () => "completed" as const })
})
export type AntifraudAnalysis = typeof AntifraudAnalysis.Type

/** What the adapter observed about one charge. */
export interface Signals {
  readonly amount: number
  /** This charge's place among the card's charges in the current window (itself included). */
  readonly cardCount: number
  /** Likewise for the buyer's document; null when the charge names none. */
  readonly documentCount: number | null
  /** The account's recent paid card charges: how many, and their average amount. */
  readonly history: { readonly count: number; readonly average: number }
  readonly holderName: string
  readonly customerName: string | null
  readonly email: string | null
  readonly ip: string | null
  readonly forced: "reject" | "review" | null
}

export const decisionOf = (score: number, settings: Pick<AntifraudSettings, "reviewAt" | "rejectAt">): Decision =>
  score >= settings.rejectAt ? "reject" : score >= settings.reviewAt ? "review" : "approve"

/** The rules that fire for these signals, in RULES order. */
export const firedRules = (signals: Signals, settings: AntifraudSettings): ReadonlyArray<RuleName> => {
  const fired: Record<RuleName, boolean> = {
    card_velocity: signals.cardCount > settings.cardVelocity.max,
    document_velocity: signals.documentCount !== null && signals.documentCount > settings.documentVelocity.max,
    amount_above_usual:
      signals.history.count >= settings.amount.minHistory &&
      signals.history.average > 0 &&
      signals.amount > settings.amount.factor * signals.history.average,
    holder_name_mismatch: signals.customerName !== null && namesDiffer(signals.holderName, signals.customerName),
    disposable_email: signals.email !== null && isDisposableEmail(signals.email),
    private_ip: signals.ip !== null && isPrivateOrReservedIp(signals.ip)
  }
  return RULES.filter((rule) => fired[rule])
}

/**
 * score = min(100, sum of the fired rules' weights); the decision follows the thresholds, except for
 * the sandbox's forced cards (a forced rejection scores at least 95, a forced review stays within the
 * review band whatever else fired).
 */
export const assess = (signals: Signals, settings: AntifraudSettings): AntifraudAnalysis => {
  const fired = firedRules(signals, settings)
  const sum = Math.min(
    100,
    fired.reduce((total, rule) => total + settings.weights[rule], 0)
  )
  const names: Array<string> = [...fired]
  let score = sum
  let decision = decisionOf(sum, settings)
  if (signals.forced === "reject") {
    names.unshift(FORCED_REJECT)
    score = Math.max(sum, FORCED_REJECT_SCORE)
    decision = "reject"
  } else if (signals.forced === "review") {
    names.unshift(FORCED_REVIEW)
    score = Math.min(Math.max(sum, settings.reviewAt), Math.max(settings.reviewAt, settings.rejectAt - 1))
    decision = "review"
  }
  return {
    decision,
    score,
    reason: names.length === 0 ? null : names.join(", "),
    status: decision === "review" ? "in_review" : "completed"
  }
}

// ---------------------------------------------------------------------------------------------------
// Names

/** Particles that say nothing about who a person is ("Maria da Silva" and "Maria Silva" are one name). */
const PARTICLES = new Set(["da", "de", "do", "das", "dos", "e", "di", "del", "van", "von"])

/**
 * Lower case, accents removed, punctuation as spaces, particles dropped. Compatibility forms folded (NFKD:
 * full-width ＪＯＡＯ is JOAO) and any script's letters kept (ИВАН, Łukasz): a name in letters that are not
 * a–z is still words, which a name check must compare, not drop.
 */
export const nameTokens = (name: string): ReadonlyArray<string> =>
  name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .split(" ")
    .filter((t) => t.length > 0 && !PARTICLES.has(t))

/**
 * Two names differ when fewer than half of the shorter one's tokens appear in the other (an initial
 * matches a token it begins: "M SILVA" is "Maria Silva"). A name without tokens never differs.
 */
export const namesDiffer = (a: string, b: string): boolean => {
  const ta = nameTokens(a)
  const tb = nameTokens(b)
  if (ta.length === 0 || tb.length === 0) return false
  const [shorter, longer] = ta.length <= tb.length ? [ta, tb] : [tb, ta]
  const matches = (t: string, u: string) =>
    t === u || (t.length === 1 && u.startsWith(t)) || (u.length === 1 && t.startsWith(u))
  const common = shorter.filter((t) => longer.some((u) => matches(t, u))).length
  return common * 2 < shorter.length
}

// ---------------------------------------------------------------------------------------------------
// E-mail

/** A short list of throwaway-mailbox domains (and their subdomains). */
export const DISPOSABLE_DOMAINS: ReadonlySet<string> = new Set([
  "mailinator.com",
  "guerrillamail.com",
  "guerrillamail.net",
  "sharklasers.com",
  "10minutemail.com",
  "temp-mail.org",
  "tempmail.com",
  "tempmail.net",
  "throwawaymail.com",
  "yopmail.com",
  "getnada.com",
  "trashmail.com",
  "dispostable.com",
  "maildrop.cc",
  "fakeinbox.com",
  "mintemail.com",
  "emailondeck.com",
  "mohmal.com",
  "tempr.email",
  "discard.email"
])

export const isDisposableEmail = (email: string): boolean => {
  const at = email.lastIndexOf("@")
  if (at < 0) return false
  const labels = email
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, "")
    .split(".")
  for (let i = 0; i < labels.length - 1; i++) {
    if (DISPOSABLE_DOMAINS.has(labels.slice(i).join("."))) return true
  }
  return false
}

// ---------------------------------------------------------------------------------------------------
// IP addresses

/** The 32-bit value of a dotted-quad IPv4 address, or null. */
export const parseIpv4 = (text: string): number | null => {
  const parts = text.split(".")
  if (parts.length !== 4) return null
  let value = 0
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith("0"))) return null
    const n = Number(part)
    if (n > 255) return null
    value = value * 256 + n
  }
  return value
}

/** The 128-bit value of an IPv6 address (with `::`, an embedded IPv4 tail and a zone allowed), or null. */
export const parseIpv6 = (text: string): bigint | null => {
  const address = text.replace(/%.*$/, "")
  if (!/^[0-9a-fA-F:.]+$/.test(address)) return null
  const halves = address.split("::")
  if (halves.length > 2) return null
  const groupsOf = (part: string): Array<number> | null => {
    if (part === "") return []
    const out: Array<number> = []
    const pieces = part.split(":")
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece)
        if (v4 === null) return null
        out.push(Math.floor(v4 / 65536), v4 % 65536)
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
        out.push(parseInt(piece, 16))
      } else return null
    }
    return out
  }
  const head = groupsOf(halves[0]!)
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : []
  if (head === null || tail === null) return null
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null
  const groups = [...head, ...Array<number>(missing).fill(0), ...tail]
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n)
}

const v4 = (cidr: string) => {
  const [base, bits] = cidr.split("/")
  return { base: parseIpv4(base!)!, bits: Number(bits) }
}
const v6 = (cidr: string) => {
  const [base, bits] = cidr.split("/")
  return { base: parseIpv6(base!)!, bits: Number(bits) }
}

/**
 * IPv4 ranges that are no buyer's public address (IANA special-purpose registry, RFC 6890): this
 * network, private (RFC 1918), carrier-grade NAT, loopback, link-local, IETF protocol assignments, the
 * three documentation networks (RFC 5737, TEST-NET), 6to4 relay, benchmarking, multicast, reserved and
 * broadcast.
 */
export const RESERVED_IPV4 = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4"
].map(v4)

/**
 * IPv6 ranges likewise: unspecified, loopback, discard-only, IETF protocol assignments (Teredo,
 * benchmarking, ORCHID), documentation (RFC 3849 and RFC 9637), unique local, link-local, the
 * deprecated site-local and multicast. IPv4-mapped and NAT64 addresses are judged by their IPv4 part.
 */
export const RESERVED_IPV6 = [
  "::/128",
  "::1/128",
  "100::/64",
  "2001::/23",
  "2001:db8::/32",
  "3fff::/20",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8"
].map(v6)

const inV4 = (value: number, range: { base: number; bits: number }) =>
  range.bits === 0 || Math.floor(value / 2 ** (32 - range.bits)) === Math.floor(range.base / 2 ** (32 - range.bits))
const inV6 = (value: bigint, range: { base: bigint; bits: number }) => {
  const shift = BigInt(128 - range.bits)
  return value >> shift === range.base >> shift
}

const MAPPED = v6("::ffff:0:0/96")
const NAT64 = v6("64:ff9b::/96")

/** Whether `ip` is private, loopback, link-local or otherwise reserved; an unparsable address is not. */
export const isPrivateOrReservedIp = (ip: string): boolean => {
  const text = ip.trim()
  const four = parseIpv4(text)
  if (four !== null) return RESERVED_IPV4.some((r) => inV4(four, r))
  const six = parseIpv6(text.replace(/^\[|\]$/g, ""))
  if (six === null) return false
  if (inV6(six, MAPPED) || inV6(six, NAT64)) {
    const embedded = Number(six & 0xffffffffn)
    return RESERVED_IPV4.some((r) => inV4(embedded, r))
  }
  return RESERVED_IPV6.some((r) => inV6(six, r))
}

// ---------------------------------------------------------------------------------------------------
// Configuration text

/**
 * Reads `ANTIFRAUD_WEIGHTS` ("card_velocity=40,private_ip=5"): the rules named replace their default
 * weight, the others keep it. Each weight is an integer from 0 to 100; an unknown rule is an error.
 */
export const parseWeights = (text: string, defaults: Weights = DEFAULT_WEIGHTS): Either.Either<Weights, string> => {
  const weights: Record<string, number> = { ...defaults }
  const trimmed = text.trim()
  if (trimmed === "") return Either.right(defaults)
  for (const entry of trimmed.split(",")) {
    const match = /^\s*([a-z_]+)\s*=\s*(\d{1,3})\s*$/.exec(entry)
    if (match === null) return Either.left(`"${entry.trim()}" is not rule=weight`)
    const [, name, value] = match
    if (!(RULES as ReadonlyArray<string>).includes(name!)) {
      return Either.left(`unknown rule "${name}" (rules: ${RULES.join(", ")})`)
    }
    const weight = Number(value)
    if (weight > 100) return Either.left(`weight of ${name} must be from 0 to 100`)
    weights[name!] = weight
  }
  return Either.right(weights as Weights)
}
