import { isIP } from "node:net"
import { Either, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  assess,
  AntifraudAnalysis,
  DEFAULT_SETTINGS,
  DEFAULT_WEIGHTS,
  decisionOf,
  isDisposableEmail,
  isPrivateOrReservedIp,
  namesDiffer,
  parseIpv6,
  parseWeights,
  RULES,
  type Signals,
  type Weights
} from "./antifraud.ts"

const quiet: Signals = {
  amount: 10_000,
  cardCount: 1,
  documentCount: 1,
  history: { count: 0, average: 0 },
  holderName: "MARIA SILVA",
  customerName: "Maria Silva",
  email: "maria@example.com",
  ip: "8.8.8.8",
  forced: null
}

describe("assess: each rule on its own", () => {
  it("nothing fires for an ordinary charge: score 0, approve, reason null", () => {
    expect(assess(quiet, DEFAULT_SETTINGS)).toEqual({
      decision: "approve",
      score: 0,
      reason: null,
      status: "completed"
    })
  })

  it.each<[string, Partial<Signals>]>([
    ["card_velocity", { cardCount: 11 }],
    ["document_velocity", { documentCount: 11 }],
    ["amount_above_usual", { amount: 100_001, history: { count: 5, average: 10_000 } }],
    ["holder_name_mismatch", { holderName: "JOAO PEREIRA" }],
    ["disposable_email", { email: "x@mailinator.com" }],
    ["private_ip", { ip: "192.168.0.10" }]
  ])("%s fires with its default weight", (rule, change) => {
    const result = assess({ ...quiet, ...change }, DEFAULT_SETTINGS)
    expect(result.reason).toBe(rule)
    expect(result.score).toBe(DEFAULT_WEIGHTS[rule as keyof typeof DEFAULT_WEIGHTS])
    expect(result.decision).toBe("approve")
  })

  it("velocity fires only above the limit (the limit itself passes)", () => {
    expect(assess({ ...quiet, cardCount: 10, documentCount: 10 }, DEFAULT_SETTINGS).reason).toBeNull()
  })

  it("amount_above_usual waits for history and needs more than factor × average", () => {
    const big = { ...quiet, amount: 1_000_000 }
    expect(assess({ ...big, history: { count: 4, average: 100 } }, DEFAULT_SETTINGS).reason).toBeNull()
    expect(
      assess({ ...quiet, amount: 100_000, history: { count: 9, average: 10_000 } }, DEFAULT_SETTINGS).reason
    ).toBeNull()
  })

  it("reason lists every fired rule in table order; the score is capped at 100", () => {
    const all: Signals = {
      amount: 1_000_000,
      cardCount: 99,
      documentCount: 99,
      history: { count: 50, average: 100 },
      holderName: "JOAO",
      customerName: "Maria",
      email: "a@yopmail.com",
      ip: "10.0.0.1",
      forced: null
    }
    const result = assess(all, DEFAULT_SETTINGS)
    expect(result.reason).toBe(RULES.join(", "))
    expect(result).toMatchObject({ score: 100, decision: "reject", status: "completed" })
  })

  it("two signals reach review: card velocity and a disposable e-mail (40 + 30)", () => {
    const result = assess({ ...quiet, cardCount: 20, email: "a@yopmail.com" }, DEFAULT_SETTINGS)
    expect(result).toEqual({
      decision: "review",
      score: 70,
      reason: "card_velocity, disposable_email",
      status: "in_review"
    })
  })

  it("the sandbox's forced cards: reject at 95+, review within the review band", () => {
    expect(assess({ ...quiet, forced: "reject" }, DEFAULT_SETTINGS)).toEqual({
      decision: "reject",
      score: 95,
      reason: "sandbox_fraud_card",
      status: "completed"
    })
    expect(assess({ ...quiet, forced: "review" }, DEFAULT_SETTINGS)).toMatchObject({
      decision: "review",
      score: 60,
      reason: "sandbox_review_card"
    })
    const loud = { ...quiet, cardCount: 99, documentCount: 99, email: "a@yopmail.com", forced: "review" as const }
    expect(assess(loud, DEFAULT_SETTINGS)).toMatchObject({ decision: "review", score: 79 })
  })

  it("property: score is min(100, Σ weights of fired rules) and the decision follows the thresholds", () => {
    const signals = fc.record({
      amount: fc.integer({ min: 1, max: 10_000_000 }),
      cardCount: fc.integer({ min: 1, max: 30 }),
      documentCount: fc.option(fc.integer({ min: 1, max: 30 })),
      history: fc.record({ count: fc.integer({ min: 0, max: 20 }), average: fc.integer({ min: 0, max: 100_000 }) }),
      holderName: fc.constantFrom("MARIA SILVA", "JOAO SOUZA"),
      customerName: fc.option(fc.constant("Maria Silva")),
      email: fc.option(fc.constantFrom("a@example.com", "a@yopmail.com")),
      ip: fc.option(fc.constantFrom("8.8.8.8", "10.1.2.3", "2001:db8::1")),
      forced: fc.constant(null)
    })
    const weights = fc.record(Object.fromEntries(RULES.map((r) => [r, fc.integer({ min: 0, max: 100 })])) as never)
    fc.assert(
      fc.property(signals, weights, fc.integer({ min: 0, max: 100 }), (s, w, reviewAt) => {
        const settings = { ...DEFAULT_SETTINGS, weights: w as Weights, reviewAt, rejectAt: Math.max(reviewAt, 80) }
        const result = assess(s as Signals, settings)
        const fired = result.reason === null ? [] : result.reason.split(", ")
        const sum = fired.reduce((t, r) => t + (w as Record<string, number>)[r]!, 0)
        expect(result.score).toBe(Math.min(100, sum))
        expect(result.decision).toBe(decisionOf(result.score, settings))
        expect(result.score).toBeGreaterThanOrEqual(0)
        expect(result.score).toBeLessThanOrEqual(100)
      })
    )
  })
})

describe("decision thresholds", () => {
  it.each([
    [0, "approve"],
    [59, "approve"],
    [60, "review"],
    [79, "review"],
    [80, "reject"],
    [100, "reject"]
  ] as const)("%d → %s", (score, decision) => {
    expect(decisionOf(score, DEFAULT_SETTINGS)).toBe(decision)
  })
})

describe("holder name vs customer name", () => {
  it.each([
    ["MARIA SILVA", "Maria Silva"],
    ["MARIA DA SILVA", "Maria Silva"],
    ["JOSÉ ANTÔNIO", "Jose Antonio Souza"],
    ["M SILVA", "Maria Silva"],
    ["maria", "Maria Aparecida dos Santos"],
    ["", "Maria"]
  ])("%s is like %s", (a, b) => expect(namesDiffer(a, b)).toBe(false))
  it.each([
    ["JOAO PEREIRA", "Maria Silva"],
    ["CARLOS", "Maria Silva"],
    ["ANA LIMA COSTA", "Maria Silva Souza"]
  ])("%s is unlike %s", (a, b) => expect(namesDiffer(a, b)).toBe(true))
  it("property: a name never differs from itself in any case or accents", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(namesDiffer(s, s.toUpperCase())).toBe(false)
      })
    )
  })
})

describe("disposable e-mail", () => {
  it.each(["a@mailinator.com", "A@YOPMAIL.COM", "x@sub.guerrillamail.com", "a@maildrop.cc."])("%s", (e) =>
    expect(isDisposableEmail(e)).toBe(true)
  )
  it.each(["a@gmail.com", "a@example.com", "a@notmailinator.com", "mailinator.com"])("not %s", (e) =>
    expect(isDisposableEmail(e)).toBe(false)
  )
})

describe("private / reserved IP", () => {
  it.each([
    "10.0.0.1",
    "172.16.5.4",
    "172.31.255.255",
    "192.168.1.1",
    "127.0.0.1",
    "169.254.10.10",
    "100.64.0.1",
    "0.0.0.0",
    "192.0.2.1",
    "198.51.100.9",
    "203.0.113.7",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1%eth0",
    "fd12:3456::1",
    "fc00::1",
    "2001:db8::1",
    "ff02::1",
    "::ffff:192.168.0.1",
    "::ffff:7f00:1",
    "64:ff9b::10.0.0.1",
    "[::1]"
  ])("%s is private or reserved", (ip) => expect(isPrivateOrReservedIp(ip)).toBe(true))
  it.each([
    "8.8.8.8",
    "172.32.0.1",
    "172.15.255.255",
    "100.128.0.1",
    "200.147.67.142",
    "2804:14c:65::1",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "not an ip",
    "999.1.1.1",
    "1.2.3"
  ])("%s is public (or not an address)", (ip) => expect(isPrivateOrReservedIp(ip)).toBe(false))

  it("property: parseIpv6 accepts exactly what Node calls IPv6", () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16))
    const full = fc.array(group, { minLength: 8, maxLength: 8 }).map((g) => g.join(":"))
    const compressed = fc
      .tuple(fc.array(group, { maxLength: 3 }), fc.array(group, { maxLength: 3 }))
      .map(([a, b]) => `${a.join(":")}::${b.join(":")}`)
    fc.assert(
      fc.property(fc.oneof(full, compressed, fc.string()), (text) => {
        expect(parseIpv6(text) !== null).toBe(isIP(text) === 6)
      })
    )
  })

  it("property: every address of 10.0.0.0/8 and 192.168.0.0/16 is private", () => {
    const octet = fc.integer({ min: 0, max: 255 })
    fc.assert(
      fc.property(octet, octet, octet, (a, b, c) => {
        expect(isPrivateOrReservedIp(`10.${a}.${b}.${c}`)).toBe(true)
        expect(isPrivateOrReservedIp(`192.168.${b}.${c}`)).toBe(true)
      })
    )
  })
})

describe("ANTIFRAUD_WEIGHTS", () => {
  it("overrides the rules named and keeps the others", () => {
    expect(parseWeights("card_velocity=55, private_ip=0")).toEqual(
      Either.right({ ...DEFAULT_WEIGHTS, card_velocity: 55, private_ip: 0 })
    )
    expect(parseWeights("")).toEqual(Either.right(DEFAULT_WEIGHTS))
  })
  it.each(["card_velocity", "card_velocity=x", "nope=10", "card_velocity=101", "card_velocity=-1"])(
    "refuses %s",
    (text) => expect(Either.isLeft(parseWeights(text))).toBe(true)
  )
})

describe("stored analysis", () => {
  it("decodes a pre-rules 'deny' as a completed reject", () => {
    expect(
      Schema.decodeUnknownSync(AntifraudAnalysis)({ decision: "deny", score: 95, reason: "fraud_suspected" })
    ).toEqual({
      decision: "reject",
      score: 95,
      reason: "fraud_suspected",
      status: "completed"
    })
  })
})
