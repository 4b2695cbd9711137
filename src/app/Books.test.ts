import fc from "fast-check"
import { Effect, Either, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfig } from "../config/AppConfig.ts"
import { type RefundId, SubaccountId, TransactionId } from "../domain/ids.ts"
import { entry, feeOf, MERCHANT, parseFee, percentageShare, SYSTEM } from "../domain/ledger.ts"
import type { Trigger } from "../domain/lifecycle.ts"
import type { TransactionRecord, TransactionStatus } from "../domain/transaction.ts"
import { Ledger } from "../ports/Ledger.ts"
import { Metrics } from "../ports/Metrics.ts"
import { Transactional } from "../ports/Transactional.ts"
import { testConfig } from "../../test/support/config.ts"
import { makeFakeBooks } from "../../test/support/fakeBooks.ts"
import { Books, BooksLive } from "./Books.ts"

/**
 * Property test of the books (issue 9): random sequences of sales (every method, installments, split),
 * settlements, refunds (some failing at the provider), disputes won and lost, and withdrawals. After
 * every step: each entry balances, each balance equals the sum of its postings, pending and reserved
 * equal the receivables and holds that explain them, and nobody's money goes below zero unless a
 * dispute forced it. A step that fails rolls back, as its database transaction would.
 */

const SUBS = [
  SubaccountId.make("10000000-0000-4000-8000-000000000001"),
  SubaccountId.make("10000000-0000-4000-8000-000000000002")
]
const PARTIES = [MERCHANT, ...SUBS]
const FEES = { CARD: parseFee("3.99%")!, PIX: parseFee("0.99%")!, BOLETO: parseFee("349")! }

const noop = { inc: () => {}, observe: () => {}, set: () => {}, reset: () => {} }
// Books' own calls are plain effects here (no database): what waits for a commit runs at once.
const NoTransactions = Layer.succeed(
  Transactional,
  Transactional.of({ run: (e) => e, retrying: (e) => e, afterCommit: (e) => e, batch: (e) => e })
)
const NoMetrics = Layer.succeed(Metrics, new Proxy({}, { get: () => noop }) as unknown as typeof Metrics.Service)

const share = fc.record({
  sub: fc.integer({ min: 0, max: 1 }),
  percent: fc.boolean(),
  part: fc.double({ min: 0, max: 0.45, noNaN: true })
})
// Withdrawing everything is the case that makes later refunds and disputes short of money.
const part = fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true }))

const Op = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("sale" as const),
      method: fc.constantFrom("PIX" as const, "BOLETO" as const, "CARD" as const),
      amount: fc.integer({ min: 1, max: 200_000 }),
      installments: fc.integer({ min: 1, max: 12 }),
      split: fc.array(share, { maxLength: 2 })
    })
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("settle" as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("refund" as const), pick: fc.nat(), part, fails: fc.boolean() })
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("dispute" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("close" as const), pick: fc.nat(), won: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("withdraw" as const), party: fc.integer({ min: 0, max: 2 }), part })
  }
)

const PAID: ReadonlyArray<TransactionStatus> = ["CAPTURED", "PAID", "PARTIAL_REFUND"]

describe("the books under random sequences (CONTRACT-v1 §7–8)", () => {
  it("stay balanced, explained and non-negative unless a dispute forces it", async () => {
    const base = await testConfig("postgres://unused/none")
    await fc.assert(
      fc.asyncProperty(
        fc.array(Op, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 30 }),
        async (ops, reservePercent) => {
          const fake = makeFakeBooks()
          const config = {
            ...base,
            money: {
              ...base.money,
              fees: FEES,
              schedule: { ...base.money.schedule, reserve: { a: BigInt(reservePercent), b: 100n } }
            }
          }
          const layer = BooksLive.pipe(
            Layer.provideMerge(Layer.mergeAll(fake.layer, NoMetrics, NoTransactions, Layer.succeed(AppConfig, config)))
          )
          const run = <A, E>(effect: Effect.Effect<A, E, Books | Ledger>) =>
            Effect.runPromise(Effect.either(Effect.provide(effect, layer)))
          const transactions: Array<TransactionRecord> = []
          const disputed = new Set<string>()
          let n = 0

          const step = async (op: (typeof ops)[number]) => {
            switch (op.op) {
              case "sale": {
                n += 1
                const amount = op.amount
                const fee = feeOf(FEES[op.method], amount)
                const net = amount - fee
                const split = op.split.map((s) => {
                  const share = s.percent
                    ? percentageShare(Math.floor(s.part * 100), amount)!
                    : Math.floor(s.part * net)
                  return {
                    subaccountId: SUBS[s.sub]!,
                    amount: s.percent ? null : share,
                    percentage: s.percent ? Math.floor(s.part * 100) : null,
                    share
                  }
                })
                if (
                  split.reduce((s, x) => s + x.share, 0) > net ||
                  new Set(split.map((s) => s.subaccountId)).size < split.length
                )
                  return
                const t = {
                  id: TransactionId.make(`20000000-0000-4000-8000-${String(n).padStart(12, "0")}`),
                  method: op.method,
                  amount,
                  amountTotal: amount,
                  fee,
                  split: split.filter((s) => s.share > 0),
                  installments: op.method === "CARD" ? op.installments : null,
                  status: op.method === "CARD" ? "CAPTURED" : "PAID",
                  refundedAmount: 0,
                  refundReserved: 0,
                  paidAt: new Date(),
                  details: {}
                } as unknown as TransactionRecord
                const trigger: Trigger = op.method === "CARD" ? "capture" : "pay"
                await run(Effect.flatMap(Books, (b) => b.record(MERCHANT as never, { trigger, before: t, after: t })))
                transactions.push(t)
                return
              }
              case "settle": {
                const open = fake.openReceivables()
                if (open.length === 0) return
                const r = open[op.pick % open.length]!
                await run(Effect.flatMap(Books, (b) => b.settle(MERCHANT as never, r.id)))
                return
              }
              case "refund": {
                const candidates = transactions.filter((t) => PAID.includes(t.status))
                if (candidates.length === 0) return
                const t = candidates[op.pick % candidates.length]!
                const remaining = t.amountTotal - t.refundedAmount
                const amount = t.method === "BOLETO" ? remaining : Math.max(1, Math.ceil(op.part * remaining))
                const refundId = `30000000-0000-4000-8000-${String(++n).padStart(12, "0")}` as RefundId
                const rollback = fake.snapshot()
                const taken = await run(
                  Effect.flatMap(Books, (b) => b.takeRefund(MERCHANT as never, t, refundId, amount))
                )
                if (Either.isLeft(taken)) {
                  expect(taken.left.code).toBe("insufficient_balance")
                  rollback()
                  return
                }
                const reserved = { ...t, refundReserved: amount }
                if (op.fails) {
                  await run(Effect.flatMap(Books, (b) => b.returnRefund(MERCHANT as never, reserved, refundId)))
                  return
                }
                await run(Effect.flatMap(Books, (b) => b.confirmRefund(MERCHANT as never, reserved, refundId)))
                const refunded = t.refundedAmount + amount
                Object.assign(t, {
                  refundedAmount: refunded,
                  status: refunded === t.amountTotal ? "REFUNDED" : "PARTIAL_REFUND"
                })
                return
              }
              case "dispute": {
                const candidates = transactions.filter((t) => PAID.includes(t.status) && t.method !== "BOLETO")
                if (candidates.length === 0) return
                const t = candidates[op.pick % candidates.length]!
                const trigger: Trigger = t.method === "CARD" ? "chargeback_open" : "med_open"
                await run(Effect.flatMap(Books, (b) => b.record(MERCHANT as never, { trigger, before: t, after: t })))
                for (const party of [MERCHANT, ...t.split.map((s) => s.subaccountId)]) disputed.add(party)
                Object.assign(t, { status: t.method === "CARD" ? "PRE_CHARGEBACK" : "MED_RECEIVED" })
                return
              }
              case "close": {
                const candidates = transactions.filter(
                  (t) => t.status === "PRE_CHARGEBACK" || t.status === "MED_RECEIVED"
                )
                if (candidates.length === 0) return
                const t = candidates[op.pick % candidates.length]!
                const card = t.method === "CARD"
                const trigger: Trigger = card
                  ? op.won
                    ? "chargeback_won"
                    : "chargeback_lost"
                  : op.won
                    ? "med_won"
                    : "med_lost"
                await run(Effect.flatMap(Books, (b) => b.record(MERCHANT as never, { trigger, before: t, after: t })))
                Object.assign(t, { status: op.won ? "PAID" : card ? "CHARGEBACK" : "MED_REPROVED" })
                return
              }
              case "withdraw": {
                // What Withdrawals.create does inside its transaction: never more than available.
                const party = PARTIES[op.party]!
                const available = fake.balanceOf(party).available
                const amount = Math.ceil(op.part * available)
                if (amount <= 0) return
                await run(
                  Effect.flatMap(Ledger, (l) =>
                    l.post(
                      MERCHANT as never,
                      entry(`withdraw:${++n}`, {}, [
                        { party, book: "available", type: "withdraw", amount: -amount, description: "w" },
                        { party: SYSTEM, book: "payouts", type: "withdraw", amount, description: "w" }
                      ])
                    )
                  )
                )
              }
            }
          }

          for (const op of ops) {
            await step(op)
            expect(fake.invariants(PARTIES), JSON.stringify(op)).toEqual([])
            for (const party of PARTIES) {
              if (!disputed.has(party))
                expect(fake.balanceOf(party).available, `${party} after ${op.op}`).toBeGreaterThanOrEqual(0)
            }
          }
        }
      ),
      { numRuns: 400 }
    )
  })
})

/**
 * A captured card sale of `amount` on fresh fake books, split to SUBS by `parts` of its net (shared
 * among them), with the refund steps Refunds takes: `take` (accepted, its money reserved) and `answer`
 * (confirmed, or returned and — under an open dispute — held by it), each keeping `t`'s columns as the
 * database would.
 */
const cardSale = async (amount: number, parts: ReadonlyArray<number>) => {
  const base = await testConfig("postgres://unused/none")
  const fake = makeFakeBooks()
  const config = { ...base, money: { ...base.money, fees: FEES } }
  const layer = BooksLive.pipe(
    Layer.provideMerge(Layer.mergeAll(fake.layer, NoMetrics, NoTransactions, Layer.succeed(AppConfig, config)))
  )
  const run = <A, E>(effect: Effect.Effect<A, E, Books | Ledger>) =>
    Effect.runPromise(Effect.either(Effect.provide(effect, layer)))
  const fee = feeOf(FEES.CARD, amount)
  const split = parts
    .map((p, i) => {
      const share = Math.floor((p * (amount - fee)) / parts.length)
      return { subaccountId: SUBS[i]!, amount: share, percentage: null, share }
    })
    .filter((s) => s.share > 0)
  const t = {
    id: TransactionId.make("20000000-0000-4000-8000-000000000001"),
    method: "CARD",
    amount,
    amountTotal: amount,
    fee,
    split,
    installments: 1,
    status: "CAPTURED",
    refundedAmount: 0,
    refundReserved: 0,
    paidAt: new Date(),
    details: {}
  } as unknown as TransactionRecord
  const record = (trigger: Trigger) =>
    run(Effect.flatMap(Books, (b) => b.record(MERCHANT as never, { trigger, before: t, after: t })))
  await record("capture")
  let n = 0
  const take = async (value: number) => {
    const refundId = `30000000-0000-4000-8000-${String(++n).padStart(12, "0")}` as RefundId
    const taken = await run(Effect.flatMap(Books, (b) => b.takeRefund(MERCHANT as never, t, refundId, value)))
    expect(Either.isRight(taken), JSON.stringify(taken)).toBe(true)
    Object.assign(t, { refundReserved: t.refundReserved + value })
    return refundId
  }
  const answer = async (refundId: RefundId, value: number, fails: boolean, disputed = false) => {
    await run(
      Effect.flatMap(Books, (b) =>
        fails ? b.returnRefund(MERCHANT as never, t, refundId) : b.confirmRefund(MERCHANT as never, t, refundId)
      )
    )
    Object.assign(t, {
      refundReserved: t.refundReserved - value,
      refundedAmount: t.refundedAmount + (fails ? 0 : value)
    })
    if (fails && disputed)
      await run(Effect.flatMap(Books, (b) => b.holdForDispute(MERCHANT as never, t, refundId, value)))
  }
  return { fake, t, split, record, take, answer }
}

/** 5,000 of 10,000 failing while 3,000 was taken, a recipient's share 3,333: the case that found both. */
const FOUND = {
  amount: 10_000,
  parts: [0.34716],
  refunds: [
    { part: 0.5, fails: true },
    { part: 0.6, fails: false }
  ]
}

/** The sale's amount, its recipients' parts of the net, and a refund (its part of what is left, and its fate). */
const SALE = fc.integer({ min: 2, max: 200_000 })
const SPLIT = fc.array(fc.double({ min: 0, max: 0.45, noNaN: true }), { minLength: 1, maxLength: 2 })
const IN_FLIGHT = fc.record({ part: fc.double({ min: 0, max: 0.6, noNaN: true }), fails: fc.boolean() })

describe('refunds in flight together, some failing (docs/ledger.md "Refunds")', () => {
  it("leave nothing astray: refunding what is left ends every party at its whole share and fee", async () => {
    await fc.assert(
      fc.asyncProperty(
        SALE,
        SPLIT,
        // Waves of refunds taken together (each while the others are at the provider), then answered in order.
        fc.array(
          fc.array(IN_FLIGHT, {
            minLength: 1,
            maxLength: 4
          }),
          { minLength: 1, maxLength: 4 }
        ),
        async (amount, parts, waves) => {
          const { fake, t, take, answer } = await cardSale(amount, parts)
          for (const wave of waves) {
            const inFlight: Array<[RefundId, number, boolean]> = []
            for (const { part, fails } of wave) {
              const value = Math.floor(part * (amount - t.refundedAmount - t.refundReserved))
              if (value > 0) inFlight.push([await take(value), value, fails])
            }
            for (const [refundId, value, fails] of inFlight) await answer(refundId, value, fails)
          }
          // The rest, refunded whole: the sale's own money is all still there (nothing settled or withdrawn).
          await answer(await take(amount - t.refundedAmount), amount - t.refundedAmount, false)
          const postings = [...fake.entries.values()].flatMap((e) => e.postings)
          const given = (party: string) =>
            postings.filter((p) => p.party === party && p.type === "refund").reduce((s, p) => s - p.amount, 0)
          for (const s of t.split) expect(given(s.subaccountId)).toBe(s.share)
          expect(postings.filter((p) => p.book === "fees").reduce((s, p) => s + p.amount, 0)).toBe(0)
          expect(fake.invariants(PARTIES)).toEqual([])
        }
      ),
      { numRuns: 300, examples: [[FOUND.amount, FOUND.parts, [FOUND.refunds]]] }
    )
  })
})

describe('a dispute after refunds in flight, some failing (docs/money.md "Refunds and disputes")', () => {
  it("takes from each recipient, with the refunds, exactly its share when lost", async () => {
    await fc.assert(
      fc.asyncProperty(
        SALE,
        SPLIT,
        fc.array(IN_FLIGHT, {
          minLength: 1,
          maxLength: 5
        }),
        // Refunds taken together; the dispute opens after that many of them are answered (the rest in flight).
        fc.nat(),
        async (amount, parts, refunds, opensAt) => {
          const { fake, t, split, record, take, answer } = await cardSale(amount, parts)
          const inFlight: Array<[RefundId, number, boolean]> = []
          for (const { part, fails } of refunds) {
            const value = Math.floor(part * (amount - t.refundedAmount - t.refundReserved))
            if (value > 0) inFlight.push([await take(value), value, fails])
          }
          const opensAfter = opensAt % (inFlight.length + 1)
          let disputed = false
          for (const [i, [refundId, value, fails]] of inFlight.entries()) {
            if (i === opensAfter) {
              await record("chargeback_open")
              disputed = true
            }
            await answer(refundId, value, fails, disputed)
          }
          if (!disputed) await record("chargeback_open")
          await record("chargeback_lost")
          // The recipients had only this sale: refunded and disputed, each is back at nothing, none below.
          for (const s of split)
            expect(fake.balanceOf(s.subaccountId)).toEqual({ available: 0, pending: 0, reserved: 0 })
          expect(fake.invariants(PARTIES)).toEqual([])
        }
      ),
      {
        numRuns: 300,
        examples: [
          [FOUND.amount, FOUND.parts, FOUND.refunds, 2],
          [FOUND.amount, FOUND.parts, FOUND.refunds, 0]
        ]
      }
    )
  })
})
