/**
 * Two PIX payments on one charge (two payers read the same QR code: the API Pix's `CobCompleta.pix` is an
 * array), then a refund of the sale. The refund's devolução goes to the payment that settled the charge, the
 * one `pix_received` records `settled`, never to the other payer's, which waits for an operator
 * (`not_payable` / `amount_mismatch`) and is returned by them: whichever the PSP lists first under the charge,
 * and whoever asks the PSP — the refund request, or the `reconcile_pix` sweep asking again (docs/providers.md
 * "Refunds"). The gateway as a process in live mode against the fake PSP (test/fakes/pix).
 */
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FakePsp } from "./fakes/pix/server.ts"
import { checkLedger } from "./support/ledger-check.ts"
import { chargePix, type Merchant, transaction, until } from "./support/payments-fixtures.ts"
import { type LivePix, startLivePix } from "./support/livePix.ts"

let live: LivePix
let psp: FakePsp
let merchant: Merchant
let db: pg.Pool
let databaseUrl: string

/** FEE_PIX, set below: 0.99% of the sale, in basis points. */
const FEE_PIX_BP = 99

beforeAll(async () => {
  live = await startLivePix("Loja Dois Pagadores", { FEE_PIX: "0.99%" })
  ;({ psp, merchant, db, databaseUrl } = live)
}, 150_000)

afterAll(() => live?.stop())

const txidOf = (transactionId: string) => transactionId.replace(/-/g, "")

/** Integer division rounded half up (the gateway's rounding of money: docs/money.md). */
const halfUp = (numerator: number, denominator: number) => Math.floor((2 * numerator + denominator) / (2 * denominator))

/**
 * What a refund of `refunded` centavos of a PIX sale of `amount` takes from the merchant: the refund less its
 * share of the PIX fee (docs/money.md: the fee returned is round_half_up(fee × refunded / amount_total)).
 */
const merchantPays = (amount: number, refunded: number) => {
  const fee = halfUp(amount * FEE_PIX_BP, 10_000)
  return refunded - halfUp(fee * refunded, amount)
}

/** An API Pix `valor` ("10.00") of centavos. */
const valorOf = (centavos: number) => `${Math.trunc(centavos / 100)}.${String(centavos % 100).padStart(2, "0")}`

const received = async (transactionId: string) =>
  (
    await db.query<{ end_to_end_id: string; outcome: string }>(
      "select end_to_end_id, outcome from pix_received where transaction_id = $1 order by received_at",
      [transactionId]
    )
  ).rows

const refundRows = async (transactionId: string) =>
  (
    await db.query<{ id: string; status: string }>(
      "select id, status from refunds where transaction_id = $1 order by created_at",
      [transactionId]
    )
  ).rows

/** The devoluções asked of the PSP since `from` (an index into its exchanges): payment, our id and amount. */
const devolucoesSince = (from: number) =>
  psp.exchanges
    .slice(from)
    .filter((x) => x.method === "PUT" && /^\/pix\/[^/]+\/devolucao\//.test(x.path))
    .map((x) => {
      const [, , e2e, , id] = x.path.split("/")
      return { e2e: e2e!, id: id!, valor: (x.requestBody as { valor?: string } | undefined)?.valor }
    })

/** The transaction as recorded: its status, what its refunds returned and what they hold reserved. */
const recorded = async (transactionId: string) => {
  const row = (
    await db.query<{ status: string; refunded: string; reserved: string }>(
      "select status, refunded_amount as refunded, refund_reserved as reserved from transactions where id = $1",
      [transactionId]
    )
  ).rows[0]!
  return { status: row.status, refunded: Number(row.refunded), reserved: Number(row.reserved) }
}

/** The merchant's money in the books: available plus pending, every party but the system's. */
const merchantBalance = async () =>
  Number(
    (
      await db.query<{ total: string | null }>(
        `select sum(amount) as total from ledger_balances
         where account_id = $1 and party <> 'system' and book in ('available', 'pending')`,
        [merchant.accountId]
      )
    ).rows[0]!.total ?? 0
  )

const paid = (transactionId: string) =>
  until(
    "the charge PAID",
    async () => ((await transaction(merchant, transactionId)).status === "PAID" ? true : undefined),
    30_000,
    200
  )

/**
 * A 50,00 charge paid twice in full: payer A first, its notice delayed and out of the PSP's listing (so the
 * PSP lists A's payment first under the charge, and nothing brings it to us yet); payer B, who read the same
 * QR code, second, whose notice settles the charge. Then A's notice arrives: the charge is no longer payable.
 */
const paidTwiceInFull = async (amount: number) => {
  const c = await chargePix(merchant, amount)
  const txid = txidOf(c.transactionId)
  const e2eA = await psp.pay(txid, { notify: false, listed: false })
  const e2eB = await psp.pay(txid, { again: true })
  await paid(c.transactionId)
  await psp.renotify(e2eA)
  expect(await received(c.transactionId)).toEqual([
    { end_to_end_id: e2eB, outcome: "settled" },
    { end_to_end_id: e2eA, outcome: "not_payable" }
  ])
  return { c, e2eA, e2eB }
}

/** The PSP returns the devolução (DEVOLVIDO) and notifies it: the refund concludes SUCCEEDED at once. */
const returned = async (transactionId: string, devolucao: { e2e: string; id: string }) => {
  await psp.settleRefund(devolucao.e2e, devolucao.id, "DEVOLVIDO")
  await until(
    "the refund SUCCEEDED",
    async () => ((await refundRows(transactionId)).every((r) => r.status === "SUCCEEDED") ? true : undefined),
    30_000,
    200
  )
}

describe("a PIX charge paid by two payers: its refund returns the payment that settled it", () => {
  it("a partial refund's devolução names the settling payment (B's), not the one the PSP lists first", async () => {
    const sale = 5_000
    const refunded = 1_000
    const { c, e2eA, e2eB } = await paidTwiceInFull(sale)
    const before = await merchantBalance()
    const from = psp.exchanges.length
    const reply = await merchant.api.post(
      "/api/payment-gateway/refund",
      { transactionId: c.transactionId, amount: refunded },
      { key: merchant.key }
    )
    expect(reply.status, reply.text).toBe(200)
    const [refund] = await refundRows(c.transactionId)
    // The buyer who paid the sale (B) is the one refunded, once; A's payment is the operator's to return.
    const asked = devolucoesSince(from)
    expect(asked.length).toBeGreaterThan(0)
    expect(new Set(asked.map((d) => d.e2e)), "the payment every devolução names").toEqual(new Set([e2eB]))
    expect(asked[0]).toEqual({ e2e: e2eB, id: refund!.id.replace(/-/g, ""), valor: valorOf(refunded) })
    expect(asked.some((d) => d.e2e === e2eA)).toBe(false)

    await returned(c.transactionId, asked[0]!)
    expect(await recorded(c.transactionId)).toEqual({ status: "PARTIAL_REFUND", refunded, reserved: 0 })
    // 10,00 less its share of the 0,50 fee (0,10): 9,90 from the merchant.
    expect(merchantPays(sale, refunded)).toBe(990)
    expect(await merchantBalance()).toBe(before - merchantPays(sale, refunded))
    expect(await checkLedger(databaseUrl)).toEqual([])
  }, 120_000)

  it("an underpaid first payment and a full second one: the sale is refunded in full, to the second", async () => {
    const sale = 5_000
    const underpaid = 4_000
    const c = await chargePix(merchant, sale)
    const txid = txidOf(c.transactionId)
    // Payer A pays 40,00 of the 50,00: amount_mismatch, the charge stays PENDING.
    const e2eA = await psp.pay(txid, { amount: underpaid })
    await until(
      "A's payment recorded",
      async () => ((await received(c.transactionId)).length === 1 ? true : undefined),
      30_000,
      200
    )
    // Payer B, who read the same QR code, pays the 50,00: it settles the charge.
    const e2eB = await psp.pay(txid, { again: true })
    await paid(c.transactionId)
    expect(await received(c.transactionId)).toEqual([
      { end_to_end_id: e2eA, outcome: "amount_mismatch" },
      { end_to_end_id: e2eB, outcome: "settled" }
    ])
    const before = await merchantBalance()
    const from = psp.exchanges.length
    // The whole sale back (interface-v2: PIX supports full and partial refunds): more than A paid, so sent to
    // A's payment the PSP would refuse it ("soma das devoluções excede") and the sale could never be refunded.
    const reply = await merchant.api.post(
      "/api/payment-gateway/refund",
      { transactionId: c.transactionId },
      { key: merchant.key }
    )
    expect(reply.status, reply.text).toBe(200)
    const [refund] = await refundRows(c.transactionId)
    const asked = devolucoesSince(from)
    expect(asked.length).toBeGreaterThan(0)
    expect(new Set(asked.map((d) => d.e2e)), "the payment every devolução names").toEqual(new Set([e2eB]))
    expect(asked[0]).toEqual({ e2e: e2eB, id: refund!.id.replace(/-/g, ""), valor: valorOf(sale) })

    await returned(c.transactionId, asked[0]!)
    expect(await recorded(c.transactionId)).toEqual({ status: "REFUNDED", refunded: sale, reserved: 0 })
    // 50,00 less the whole 0,50 fee: 49,50 from the merchant.
    expect(merchantPays(sale, sale)).toBe(4_950)
    expect(await merchantBalance()).toBe(before - merchantPays(sale, sale))
    expect(await checkLedger(databaseUrl)).toEqual([])
  }, 120_000)

  it("a refund the PSP did not answer is asked again by reconcile_pix for the settling payment too", async () => {
    const sale = 5_000
    const refunded = 2_500
    const { c, e2eA, e2eB } = await paidTwiceInFull(sale)
    const before = await merchantBalance()
    // The PSP down for the refund (the adapter's one retry too): undecided, PENDING, its money reserved.
    psp.inject("PUT /pix/", "5xx")
    psp.inject("PUT /pix/", "5xx")
    const reply = await merchant.api.post(
      "/api/payment-gateway/refund",
      { transactionId: c.transactionId, amount: refunded },
      { key: merchant.key }
    )
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toMatchObject({ status: "PAID", refundedAmount: 0 })
    expect(psp.pendingFaults()).toBe(0)
    const [refund] = await refundRows(c.transactionId)
    expect(refund!.status).toBe("PENDING")
    expect(await recorded(c.transactionId)).toEqual({ status: "PAID", refunded: 0, reserved: refunded })
    expect(await merchantBalance()).toBe(before - merchantPays(sale, refunded))
    // Asked a while ago (past PIX_REFUND_SWEEP_AFTER_MS, 30 s): the sweep's to ask again, now.
    const from = psp.exchanges.length
    await db.query("update refunds set created_at = created_at - interval '1 minute' where id = $1", [refund!.id])
    await db.query("select graphile_worker.add_job('reconcile_pix', '{}'::json)")
    const asked = await until(
      "the sweep's devolução",
      async () => {
        const made = devolucoesSince(from)
        return made.length > 0 ? made : undefined
      },
      60_000,
      250
    )
    expect(asked[0]).toEqual({ e2e: e2eB, id: refund!.id.replace(/-/g, ""), valor: valorOf(refunded) })
    expect(devolucoesSince(from).some((d) => d.e2e === e2eA)).toBe(false)

    await returned(c.transactionId, asked[0]!)
    expect(await recorded(c.transactionId)).toEqual({ status: "PARTIAL_REFUND", refunded, reserved: 0 })
    // 25,00 less its share of the 0,50 fee (0,25): 24,75 from the merchant, taken once.
    expect(merchantPays(sale, refunded)).toBe(2_475)
    expect(await merchantBalance()).toBe(before - merchantPays(sale, refunded))
    expect(devolucoesSince(0).filter((d) => d.e2e === e2eA)).toEqual([])
    expect(await checkLedger(databaseUrl)).toEqual([])
  }, 150_000)
})
