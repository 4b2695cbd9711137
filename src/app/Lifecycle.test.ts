import { AccountId, OrderId, TransactionId } from "../domain/ids.ts"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { makeFakePorts } from "../../test/support/fakePorts.ts"
import { TRANSITIONS, TRIGGERS, type Trigger } from "../domain/lifecycle.ts"
import { PaymentMethod, TransactionStatus, type TransactionRecord } from "../domain/transaction.ts"
import { Lifecycle } from "./Lifecycle.ts"

const ACCOUNT = AccountId.make("00000000-0000-4000-8000-000000000001")
const ORDER = OrderId.make("00000000-0000-4000-8000-000000000002")
const TX = TransactionId.make("00000000-0000-4000-8000-000000000003")

const seed = (status: TransactionStatus, method: PaymentMethod, origin: "v2" | "v1" = "v2"): TransactionRecord => ({
  id: TX,
  origin,
  orderId: ORDER,
  split: [],
  fee: 0,
  customerId: null,
  method,
  amount: 1000,
  amountTotal: 1000,
  amountInterest: 0,
  buyer: null,
  products: [],
  metadata: null,
  comment: null,
  status,
  refundedAmount: 0,
  refundReserved: 0,
  installments: null,
  details: {},
  declineCode: null,
  acquirerReference: null,
  acquirer: null,
  cardToken: null,
  antifraud: null,
  paidAt: null,
  expiresAt: null,
  createdAt: new Date(0),
  updatedAt: new Date(0)
})

/** Runs one move on a fresh in-memory world holding one transaction and its PENDING order. */
const moveOnce = (status: TransactionStatus, method: PaymentMethod, trigger: Trigger) => {
  const fakes = makeFakePorts()
  fakes.transactions.set(TX, seed(status, method))
  fakes.orders.set(ORDER, "PENDING")
  const run = Effect.flatMap(Lifecycle, (l) => l.move(ACCOUNT, TX, trigger)).pipe(
    Effect.either,
    Effect.provide(Lifecycle.Default.pipe(Layer.provide(fakes.layer)))
  )
  return Effect.map(run, (result) => ({ result, fakes }))
}

describe("Lifecycle: every (status, method, trigger) against the table, through fake ports", () => {
  const statuses = TransactionStatus.literals
  const methods = PaymentMethod.literals
  for (const trigger of TRIGGERS) {
    it.effect(`${trigger}: moves exactly where the table says, or fails typed and writes nothing`, () =>
      Effect.gen(function* () {
        for (const status of statuses) {
          for (const method of methods) {
            const { fakes, result } = yield* moveOnce(status, method, trigger)
            const rule = TRANSITIONS[trigger]
            const legal = rule.from.includes(status) && rule.methods.includes(method)
            if (legal) {
              expect(Either.isRight(result), `${method} ${status} --${trigger}-->`).toBe(true)
              expect(fakes.transactions.get(TX)!.status).toBe(rule.to)
              expect(fakes.movements).toHaveLength(1)
              expect(fakes.movements[0]!.trigger).toBe(trigger)
              expect(fakes.events.map((e) => e.kind)).toEqual([trigger])
            } else {
              expect(Either.isLeft(result) && result.left._tag, `${method} ${status} --${trigger}-->`).toBe(
                "IllegalTransition"
              )
              expect(fakes.transactions.get(TX)!.status).toBe(status)
              expect(fakes.movements).toHaveLength(0)
              expect(fakes.events).toHaveLength(0)
              expect(fakes.orders.get(ORDER)).toBe("PENDING")
            }
          }
        }
      })
    )
  }

  // Hand-written rows of interface-v2 and CONTRACT-v1, so that the table itself is checked too.
  const expected: ReadonlyArray<readonly [TransactionStatus, PaymentMethod, Trigger, TransactionStatus | "illegal"]> = [
    ["PENDING", "PIX", "pay", "PAID"],
    ["PENDING", "BOLETO", "expire", "FAILED"],
    ["PENDING", "PIX", "cancel", "CANCELLED"],
    ["PENDING", "CARD", "pay", "illegal"],
    ["PROCESSING", "CARD", "capture", "CAPTURED"],
    ["PROCESSING", "CARD", "decline", "DECLINED"],
    ["ANTIFRAUD", "CARD", "approve", "PROCESSING"],
    ["CAPTURED", "CARD", "refund_partial", "PARTIAL_REFUND"],
    ["PARTIAL_REFUND", "PIX", "refund_full", "REFUNDED"],
    ["REFUNDED", "CARD", "refund_partial", "illegal"],
    ["DECLINED", "CARD", "refund_full", "illegal"],
    ["PAID", "PIX", "chargeback_open", "illegal"],
    ["CAPTURED", "CARD", "chargeback_open", "PRE_CHARGEBACK"],
    ["PRE_CHARGEBACK", "CARD", "chargeback_won", "PAID"],
    ["PAID", "PIX", "med_open", "MED_RECEIVED"],
    ["MED_RECEIVED", "PIX", "med_lost", "MED_REPROVED"],
    ["MED_REPROVED", "PIX", "med_won", "illegal"],
    ["PAID", "PIX", "pay", "illegal"]
  ]
  it.effect("the table agrees with the specs' rows", () =>
    Effect.gen(function* () {
      for (const [from, method, trigger, to] of expected) {
        const { fakes, result } = yield* moveOnce(from, method, trigger)
        const got = Either.isRight(result) ? fakes.transactions.get(TX)!.status : "illegal"
        expect(got, `${method} ${from} --${trigger}-->`).toBe(to)
      }
    })
  )

  it.effect("moves the order: paid on pay and capture, expired on expiry, cancelled on a full refund", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [TransactionStatus, PaymentMethod, Trigger, string]> = [
        ["PENDING", "PIX", "pay", "PAID"],
        ["PROCESSING", "CARD", "capture", "PAID"],
        ["PENDING", "BOLETO", "expire", "EXPIRED"],
        ["PAID", "PIX", "refund_full", "CANCELLED"],
        ["PAID", "PIX", "refund_partial", "PENDING"]
      ]
      for (const [from, method, trigger, order] of cases) {
        const { fakes } = yield* moveOnce(from, method, trigger)
        expect(fakes.orders.get(ORDER), `${trigger}`).toBe(order)
      }
    })
  )

  it.effect("a bolepix leaving PENDING other than by its PIX asks, in the move, for its cobv's withdrawal", () =>
    Effect.gen(function* () {
      const pix = { emv: "000201", txid: "a".repeat(32), expiresAt: "2027-01-01", qrToken: "t" }
      const boleto = { barcode: "0".repeat(44) } as unknown as NonNullable<TransactionRecord["details"]["boleto"]>
      const payment = (rail: "pix" | "barcode") => ({
        paidOn: "2027-01-01",
        amount: 1000,
        principal: 1000,
        abatement: 0,
        discount: 0,
        fine: 0,
        interest: 0,
        rail
      })
      const cases: ReadonlyArray<readonly [string, boolean, Trigger, "pix" | "barcode" | null, number]> = [
        ["bolepix paid by its barcode", true, "pay", "barcode", 1],
        ["bolepix expired (v2)", true, "expire", null, 1],
        ["bolepix cancelled (v1)", true, "cancel", null, 1],
        ["bolepix paid by its PIX: the cobv is concluded", true, "pay", "pix", 0],
        ["plain boleto paid", false, "pay", "barcode", 0],
        ["plain boleto expired", false, "expire", null, 0]
      ]
      for (const [name, bolepix, trigger, rail, withdrawals] of cases) {
        const fakes = makeFakePorts()
        fakes.transactions.set(TX, {
          ...seed("PENDING", "BOLETO"),
          details: bolepix ? { boleto, pix } : { boleto }
        })
        fakes.orders.set(ORDER, "PENDING")
        const changes = rail === null ? {} : { details: { payment: payment(rail) } }
        yield* Effect.flatMap(Lifecycle, (l) => l.move(ACCOUNT, TX, trigger, changes)).pipe(
          Effect.provide(Lifecycle.Default.pipe(Layer.provide(fakes.layer)))
        )
        expect(fakes.withdrawals, name).toEqual(Array(withdrawals).fill(TX))
      }
      // A move refused by the table asks for nothing.
      const fakes = makeFakePorts()
      fakes.transactions.set(TX, { ...seed("PAID", "BOLETO"), details: { boleto, pix } })
      const refused = yield* Effect.flatMap(Lifecycle, (l) => l.move(ACCOUNT, TX, "expire")).pipe(
        Effect.either,
        Effect.provide(Lifecycle.Default.pipe(Layer.provide(fakes.layer)))
      )
      expect(Either.isLeft(refused)).toBe(true)
      expect(fakes.withdrawals).toEqual([])
    })
  )
})
