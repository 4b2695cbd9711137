import type { AccountId, RefundId, TransactionId } from "../domain/ids.ts"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { Conflict } from "../domain/errors.ts"
import type { Trigger } from "../domain/lifecycle.ts"
import {
  bookOf,
  counterparty,
  disputeShares,
  failedRefundShares,
  entry,
  MERCHANT,
  type Party,
  type Posting,
  planSale,
  refundShares,
  type Share,
  type Source,
  SYSTEM,
  take
} from "../domain/ledger.ts"
import { refundBase, type TransactionRecord } from "../domain/transaction.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { Ledger } from "../ports/Ledger.ts"
import { Metrics } from "../ports/Metrics.ts"
import { type NewHold, type Receivable, Receivables } from "../ports/Receivables.ts"
import { Transactional } from "../ports/Transactional.ts"
import { fn, withSpan } from "../spans.ts"

/** A status change that may move money, as the lifecycle hands it to the books. */
export interface Movement {
  readonly trigger: Trigger
  readonly before: TransactionRecord
  readonly after: TransactionRecord
}

/**
 * The books (CONTRACT-v1 §7–8, docs/money.md). Every method runs inside the database transaction of
 * the change that causes the movement, so postings commit or roll back with it. The rules are in
 * src/domain/ledger.ts; this service reads and locks what they need and writes what they say.
 */
export class Books extends Context.Tag("Books")<
  Books,
  {
    /** Called by the lifecycle on every status change: a sale, a dispute opened, lost or won. */
    readonly record: (accountId: AccountId, movement: Movement) => Effect.Effect<void>
    /**
     * Takes a refund from the parties of a paid transaction (the caller holds its row lock) before
     * the provider is asked; 409 `insufficient_balance` and nothing moves if any party cannot pay.
     */
    readonly takeRefund: (
      accountId: AccountId,
      t: TransactionRecord,
      refundId: RefundId,
      amount: number
    ) => Effect.Effect<void, Conflict>
    /** The provider refunded: the refund's holds are closed. */
    readonly confirmRefund: (accountId: AccountId, t: TransactionRecord, refundId: RefundId) => Effect.Effect<void>
    /** The provider could not refund: the money goes back exactly where it was taken from. */
    readonly returnRefund: (accountId: AccountId, t: TransactionRecord, refundId: RefundId) => Effect.Effect<void>
    /**
     * A refund in flight when a dispute opened failed: the open dispute holds its `amount` too
     * (after returnRefund; `t` as it is once the refund's reservation is given back).
     */
    readonly holdForDispute: (
      accountId: AccountId,
      t: TransactionRecord,
      refundId: RefundId,
      amount: number
    ) => Effect.Effect<void>
    /** Makes a receivable available (its job, at available_at); posts once however often it runs. */
    readonly settle: (accountId: AccountId, receivableId: string) => Effect.Effect<void>
    /** Makes a transaction's pending receivables available now (the sandbox's settle; not its reserve). */
    readonly settleTransaction: (accountId: AccountId, transactionId: TransactionId) => Effect.Effect<void>
  }
>() {}

const sharesOf = (t: TransactionRecord): ReadonlyArray<Share> =>
  t.split.map((s) => ({ party: s.subaccountId, amount: s.share }))

const insufficient = () =>
  new Conflict({
    code: "insufficient_balance",
    message: "the balance cannot cover this movement (CONTRACT-v1 §7); nothing was moved"
  })

export const BooksLive = Layer.effect(
  Books,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const ledger = yield* Ledger
    const receivables = yield* Receivables
    const scheduler = yield* JobScheduler
    const metrics = yield* Metrics
    const tx = yield* Transactional
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    // Counted once committed: a movement rolled back, or run again as a deadlock's victim, counts nothing.
    const post = (accountId: AccountId, e: ReturnType<typeof entry>) =>
      Effect.tap(e.postings.length === 0 ? Effect.succeed(true) : ledger.post(accountId, e), (posted) =>
        posted
          ? tx.afterCommit(
              Effect.sync(() => {
                for (const p of e.postings) if (p.party !== SYSTEM) metrics.ledgerPostings.inc({ type: p.type })
              })
            )
          : Effect.void
      )

    const settleOne = fn("Books.settleOne")(function* (accountId: AccountId, r: Receivable) {
      if (r.settledAt !== null) return
      const type = r.balance === "pending" ? "settlement" : "reserve_release"
      yield* post(
        accountId,
        entry(`settle:${r.id}`, { transactionId: r.transactionId }, [
          { party: r.party, book: r.balance, type, amount: -r.amount, description: type.replace("_", " ") },
          { party: r.party, book: "available", type, amount: r.amount, description: type.replace("_", " ") }
        ])
      )
      yield* receivables.markSettled(accountId, r.id, yield* now)
    })

    /** A paid sale: its postings, its receivables, and each receivable's settlement (now or a job). */
    const sale = fn("Books.sale")(function* (accountId: AccountId, t: TransactionRecord) {
      const paidAt = t.paidAt ?? (yield* now)
      const plan = planSale({
        method: t.method,
        amountTotal: t.amountTotal,
        installments: t.installments ?? 1,
        paidAt,
        fee: t.fee,
        shares: sharesOf(t),
        schedule: config.money.schedule,
        // Records built before payments had parts carry no details (src/app/Books.test.ts).
        ...(t.details?.payment === undefined ? {} : { charges: t.details.payment })
      })
      const at = yield* now
      // A receivable due now settles in this transaction: its entry moves `available` after the sale's
      // moved `pending`. Every balance row of the parties is locked first, in the one order (LedgerLive's
      // byLockOrder), so a withdrawal locking them meanwhile waits instead of deadlocking.
      const dueNow = plan.receivables.filter((r) => r.availableAt.getTime() <= at.getTime())
      if (dueNow.length > 0)
        yield* ledger.lock(
          accountId,
          dueNow.map((r) => r.party)
        )
      if (!(yield* post(accountId, entry(`sale:${t.id}`, { transactionId: t.id }, plan.postings)))) return
      const created = yield* receivables.insert(accountId, t.id, plan.receivables)
      for (const r of created) {
        if (r.availableAt.getTime() <= at.getTime()) yield* settleOne(accountId, r)
        else yield* scheduler.settleAt(accountId, r.id, r.availableAt)
      }
    })

    /** Where a party's money of transaction `t` is taken from: its receivables, its reserve, then available. */
    const sourcesOf = (party: Party, open: ReadonlyArray<Receivable>, available: number): ReadonlyArray<Source> => [
      ...open
        .filter((r) => r.party === party && r.balance === "pending")
        .map((r) => ({ kind: "receivable" as const, id: r.id, balance: r.balance, amount: r.amount })),
      ...open
        .filter((r) => r.party === party && r.balance === "reserved")
        .map((r) => ({ kind: "receivable" as const, id: r.id, balance: r.balance, amount: r.amount })),
      { kind: "available" as const, amount: available }
    ]

    /** Applies what `take` decided: lower the receivables it drew on and note the holds. */
    const draw = fn("Books.draw")(function* (
      accountId: AccountId,
      open: ReadonlyArray<Receivable>,
      party: Party,
      parts: ReturnType<typeof take>["parts"],
      holds: Array<NewHold>
    ) {
      for (const part of parts) {
        if (part.source.kind === "receivable") {
          const id = part.source.id
          const r = open.find((x) => x.id === id)!
          const left = r.amount - part.amount
          ;(r as { amount: number }).amount = left
          yield* receivables.setAmount(accountId, id, left)
        }
        holds.push({
          party,
          source: part.source.kind,
          receivableId: part.source.kind === "receivable" ? part.source.id : null,
          amount: part.amount
        })
      }
    })

    const takeRefund = fn("Books.takeRefund")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      refundId: RefundId,
      amount: number
    ) {
      // A sale paid before the books existed has nothing to take from.
      if (!(yield* ledger.posted(accountId, `sale:${t.id}`))) return
      const shares = refundShares(
        // On what the buyer paid: a boleto's fine and interest go back with it, its discount does not.
        { amountTotal: refundBase(t), fee: t.fee, shares: sharesOf(t) },
        t.refundedAmount + t.refundReserved,
        amount,
        // Against what the books say was taken: a refund that failed meanwhile leaves no centavo astray.
        yield* ledger.refundsTaken(accountId, t.id)
      )
      const open = yield* receivables.openForUpdate(accountId, t.id)
      const balances = yield* ledger.lock(accountId, [MERCHANT, ...shares.recipients.map((r) => r.party)])
      const postings: Array<Posting> = []
      const holds: Array<NewHold> = []
      const refund = (party: Party, book: Posting["book"], value: number): Posting => ({
        party,
        book,
        type: "refund",
        amount: -value,
        description: "refund"
      })
      for (const r of shares.recipients) {
        const { parts, shortfall } = take(r.amount, sourcesOf(r.party, open, balances.get(r.party)!.available), false)
        if (shortfall > 0) return yield* insufficient()
        yield* draw(accountId, open, r.party, parts, holds)
        for (const part of parts) postings.push(refund(r.party, bookOf(part.source), part.amount))
      }
      // The merchant pays its part less the fee returned (CONTRACT-v1 §7).
      const need = shares.merchant - shares.feeDelta
      const { parts, shortfall } =
        need > 0
          ? take(need, sourcesOf(MERCHANT, open, balances.get(MERCHANT)!.available), false)
          : { parts: [], shortfall: 0 }
      if (shortfall > 0) return yield* insufficient()
      yield* draw(accountId, open, MERCHANT, parts, holds)
      const first = parts[0] === undefined ? "available" : bookOf(parts[0].source)
      for (const part of parts) postings.push(refund(MERCHANT, bookOf(part.source), part.amount))
      postings.push(refund(MERCHANT, first, need > 0 ? shares.feeDelta : shares.merchant))
      postings.push(
        { party: MERCHANT, book: first, type: "fee", amount: shares.feeDelta, description: "fee returned" },
        { party: SYSTEM, book: "fees", type: "fee", amount: -shares.feeDelta, description: "fee returned" },
        { party: SYSTEM, book: counterparty(t.method), type: "refund", amount: amount, description: "refund" }
      )
      yield* post(accountId, entry(`refund:${refundId}`, { transactionId: t.id }, postings))
      yield* receivables.hold(accountId, t.id, `refund:${refundId}`, holds)
    })

    /** Puts held money back: into its receivable while open, else straight to available. */
    const restore = fn("Books.restore")(function* (
      accountId: AccountId,
      transactionId: TransactionId,
      key: string,
      holds: ReadonlyArray<NewHold>,
      type: Posting["type"],
      from: "reserved" | null
    ) {
      const postings: Array<Posting> = []
      for (const hold of holds) {
        const r =
          hold.receivableId === null ? Option.none() : yield* receivables.findForUpdate(accountId, hold.receivableId)
        const reopened = Option.isSome(r) && r.value.settledAt === null
        if (Option.isSome(r) && reopened)
          yield* receivables.setAmount(accountId, r.value.id, r.value.amount + hold.amount)
        const to = Option.isSome(r) && reopened ? r.value.balance : "available"
        // Taken by a refund, the money left its book; taken by a dispute, it sits in reserved.
        if (from === null) {
          // The refund's own postings are reversed separately; only a receivable settled meanwhile needs moving.
          if (Option.isSome(r) && !reopened) {
            postings.push(
              { party: hold.party, book: r.value.balance, type, amount: -hold.amount, description: "returned" },
              { party: hold.party, book: "available", type, amount: hold.amount, description: "returned" }
            )
          }
        } else if (from !== to) {
          postings.push(
            { party: hold.party, book: from, type, amount: -hold.amount, description: "dispute won" },
            { party: hold.party, book: to, type, amount: hold.amount, description: "dispute won" }
          )
        }
      }
      yield* post(accountId, entry(key, { transactionId }, postings))
    })

    const returnRefund = fn("Books.returnRefund")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      refundId: RefundId
    ) {
      const original = yield* ledger.entryPostings(accountId, `refund:${refundId}`)
      if (original.length === 0) return
      // Receivables before balances, as a settlement job locks them: restore reopens them below.
      yield* receivables.openForUpdate(accountId, t.id)
      yield* ledger.lock(
        accountId,
        original.filter((p) => p.party !== SYSTEM).map((p) => p.party)
      )
      // The exact negation of the refund's entry, then any receivable settled meanwhile moved on.
      yield* post(
        accountId,
        entry(
          `refund_reversal:${refundId}`,
          { transactionId: t.id },
          original.map((p) => ({ ...p, amount: -p.amount, description: "refund failed: returned" }))
        )
      )
      const holds = yield* receivables.release(accountId, t.id, `refund:${refundId}`)
      yield* restore(accountId, t.id, `refund_reversal_settled:${refundId}`, holds, "refund", null)
    })

    const disputeType = (trigger: Trigger) => (trigger.startsWith("med") ? ("med" as const) : ("chargeback" as const))

    /**
     * Moves `amount` of transaction `t` into `reserved` for its dispute, held under `tag`: the parties'
     * shares as a refund of the money above `above` would take them, each from its own receivables,
     * its reserve, then available (which a dispute may drive negative).
     */
    const holdDisputed = fn("Books.holdDisputed")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      type: "chargeback" | "med",
      shares: ReadonlyArray<Share>,
      tag: string,
      key: string,
      description: string
    ) {
      const open = yield* receivables.openForUpdate(accountId, t.id)
      const balances = yield* ledger.lock(
        accountId,
        shares.map((s) => s.party)
      )
      const postings: Array<Posting> = []
      const holds: Array<NewHold> = []
      for (const share of shares) {
        // A dispute is not optional: what the party lacks is taken from available, which may go negative.
        const { parts } = take(share.amount, sourcesOf(share.party, open, balances.get(share.party)!.available), true)
        yield* draw(accountId, open, share.party, parts, holds)
        for (const part of parts) {
          const book = bookOf(part.source)
          if (book === "reserved") continue
          postings.push(
            { party: share.party, book, type, amount: -part.amount, description },
            { party: share.party, book: "reserved", type, amount: part.amount, description }
          )
        }
      }
      yield* post(accountId, entry(key, { transactionId: t.id }, postings))
      yield* receivables.hold(accountId, t.id, tag, holds)
    })

    /**
     * A dispute holds what is neither refunded nor being refunded: a refund accepted before it opened
     * stands (docs/money.md "Refunds and disputes").
     */
    const openDispute = fn("Books.openDispute")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      trigger: Trigger
    ) {
      if (!(yield* ledger.posted(accountId, `sale:${t.id}`))) return
      const type = disputeType(trigger)
      const n = yield* receivables.countTags(accountId, t.id, "dispute:")
      const taken = t.refundedAmount + t.refundReserved
      // Each party's share of what is left, against what the books say the refunds took (ledger.ts).
      const shares = disputeShares(
        { amountTotal: t.amountTotal, shares: sharesOf(t) },
        taken,
        t.amountTotal - taken,
        yield* ledger.refundsTaken(accountId, t.id)
      )
      yield* holdDisputed(accountId, t, type, shares, `dispute:${n}`, `dispute:${t.id}:${n}:open`, `${type} opened`)
      yield* tx.afterCommit(Effect.sync(() => metrics.disputes.inc({ kind: type, outcome: "opened" })))
    })

    /**
     * A refund that was in flight when the dispute opened failed at the provider: its money, just put
     * back, is what the dispute would have held had the refund never been asked, so the open dispute
     * holds it too (docs/money.md "Refunds and disputes"). Under the transaction's row lock.
     */
    const holdForDispute = fn("Books.holdForDispute")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      refundId: RefundId,
      amount: number
    ) {
      if (!(yield* ledger.posted(accountId, `sale:${t.id}`))) return
      const type = t.method === "PIX" ? ("med" as const) : ("chargeback" as const)
      // The open dispute's tag; a dispute that held nothing (a full refund was in flight) has none yet,
      // and its holds start the next number, which closing it will look for.
      const n = yield* receivables.countTags(accountId, t.id, "dispute:")
      const tag = Option.getOrElse(yield* receivables.openTag(accountId, t.id, "dispute:"), () => `dispute:${n}`)
      // What the failed refund had taken from each party, as its own entry says (its reversal gave it back).
      const shares = failedRefundShares(amount, yield* ledger.entryPostings(accountId, `refund:${refundId}`))
      yield* holdDisputed(
        accountId,
        t,
        type,
        shares,
        tag,
        `dispute:${t.id}:refund_failed:${refundId}`,
        `${type}: refund failed`
      )
    })

    const closeDispute = fn("Books.closeDispute")(function* (
      accountId: AccountId,
      t: TransactionRecord,
      trigger: Trigger,
      won: boolean
    ) {
      const type = disputeType(trigger)
      const n = (yield* receivables.countTags(accountId, t.id, "dispute:")) - 1
      if (n < 0) return
      // Receivables before balances, as a settlement job locks them: a won dispute reopens them.
      yield* receivables.openForUpdate(accountId, t.id)
      const holds = yield* receivables.release(accountId, t.id, `dispute:${n}`)
      yield* ledger.lock(
        accountId,
        holds.map((h) => h.party)
      )
      const key = `dispute:${t.id}:${n}:${won ? "won" : "lost"}`
      yield* tx.afterCommit(Effect.sync(() => metrics.disputes.inc({ kind: type, outcome: won ? "won" : "lost" })))
      if (won) return yield* restore(accountId, t.id, key, holds, type, "reserved")
      const total = holds.reduce((s, h) => s + h.amount, 0)
      yield* post(
        accountId,
        entry(key, { transactionId: t.id }, [
          ...holds.map((h): Posting => ({
            party: h.party,
            book: "reserved",
            type,
            amount: -h.amount,
            description: `${type} lost`
          })),
          { party: SYSTEM, book: counterparty(t.method), type, amount: total, description: `${type} lost` }
        ])
      )
    })

    return Books.of({
      record: (accountId, { after, before, trigger }) => {
        switch (trigger) {
          case "capture":
          case "pay":
            return sale(accountId, after)
          case "chargeback_open":
          case "med_open":
            return openDispute(accountId, before, trigger)
          case "chargeback_lost":
          case "med_lost":
            return closeDispute(accountId, before, trigger, false)
          case "chargeback_won":
          case "med_won":
            return closeDispute(accountId, before, trigger, true)
          default:
            // Refunds post when they are taken (takeRefund), before the provider is asked.
            return Effect.void
        }
      },
      takeRefund,
      confirmRefund: (accountId, t, refundId) =>
        Effect.asVoid(receivables.release(accountId, t.id, `refund:${refundId}`)).pipe(withSpan("Books.confirmRefund")),
      returnRefund,
      holdForDispute,
      settle: (accountId, receivableId) =>
        Effect.flatMap(receivables.findForUpdate(accountId, receivableId), (found) =>
          Option.isNone(found) ? Effect.void : settleOne(accountId, found.value)
        ).pipe(withSpan("Books.settle")),
      settleTransaction: (accountId, transactionId) =>
        Effect.flatMap(receivables.openForUpdate(accountId, transactionId), (open) => {
          const due = open.filter((r) => r.balance === "pending")
          // Several parties' entries in one transaction: their balance rows locked first, in the one order.
          return Effect.zipRight(
            due.length > 1
              ? ledger.lock(
                  accountId,
                  due.map((r) => r.party)
                )
              : Effect.void,
            Effect.forEach(due, (r) => settleOne(accountId, r), { discard: true })
          )
        }).pipe(withSpan("Books.settleTransaction"))
    })
  })
)
