import { Effect, Layer, Option } from "effect"
import { BALANCES, type Balance, type Entry, isBalanced, MERCHANT, SYSTEM } from "../../src/domain/ledger.ts"
import type { TransactionId } from "../../src/domain/ids.ts"
import { JobScheduler } from "../../src/ports/JobScheduler.ts"
import { type Balances, Ledger } from "../../src/ports/Ledger.ts"
import type { Metrics } from "../../src/ports/Metrics.ts"
import { type Hold, type Receivable, Receivables } from "../../src/ports/Receivables.ts"

/**
 * In-memory Ledger and Receivables ports with the guarantees the PostgreSQL adapters give (one entry
 * per key, balanced entries, balances moved only by postings), for property tests of the books.
 */
export const makeFakeBooks = () => {
  const entries = new Map<string, Entry>()
  const balances = new Map<string, number>()
  const receivables = new Map<string, Receivable>()
  const holds: Array<Hold & { tag: string; transactionId: string; released: boolean }> = []
  let ids = 0
  const next = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, "0")}`
  const get = (party: string): Balances => ({
    available: balances.get(`${party}/available`) ?? 0,
    pending: balances.get(`${party}/pending`) ?? 0,
    reserved: balances.get(`${party}/reserved`) ?? 0
  })

  const ledger = Ledger.of({
    post: (_, entry) =>
      Effect.sync(() => {
        if (entries.has(entry.key)) return false
        if (!isBalanced(entry.postings)) throw new Error(`unbalanced entry ${entry.key}`)
        entries.set(entry.key, entry)
        for (const p of entry.postings) {
          if (p.amount === 0) throw new Error(`zero posting in ${entry.key}`)
          if (p.party === SYSTEM) continue
          balances.set(`${p.party}/${p.book}`, (balances.get(`${p.party}/${p.book}`) ?? 0) + p.amount)
        }
        return true
      }),
    entryPostings: (_, key) => Effect.sync(() => entries.get(key)?.postings ?? []),
    refundsTaken: (_, transactionId) =>
      Effect.sync(() => {
        const recipients = new Map<string, number>()
        let fee = 0
        for (const e of entries.values()) {
          if (e.transactionId !== transactionId || !e.key.startsWith("refund")) continue
          for (const p of e.postings) {
            if (p.type === "fee" && p.book === "fees") fee -= p.amount
            else if (p.type === "refund" && p.party !== SYSTEM && p.party !== MERCHANT)
              recipients.set(p.party, (recipients.get(p.party) ?? 0) - p.amount)
          }
        }
        return { recipients, fee }
      }),
    posted: (_, key) => Effect.sync(() => entries.has(key)),
    lock: (_, parties) => Effect.sync(() => new Map(parties.map((p) => [p, get(p)]))),
    balance: (_, party) => Effect.sync(() => ({ ...get(party), updatedAt: null })),
    statement: () => Effect.succeed({ rows: [], total: 0, next: null }),
    check: Effect.succeed([])
  })

  const port = Receivables.of({
    insert: (_, transactionId, rows) =>
      Effect.sync(() =>
        rows.map((r) => {
          const created: Receivable = { ...r, id: next(), transactionId, settledAt: null }
          receivables.set(created.id, created)
          return { ...created }
        })
      ),
    openForUpdate: (_, transactionId) =>
      Effect.sync(() =>
        [...receivables.values()]
          .filter((r) => r.transactionId === transactionId && r.settledAt === null)
          .sort((a, b) => b.availableAt.getTime() - a.availableAt.getTime() || (a.id < b.id ? -1 : 1))
          .map((r) => ({ ...r }))
      ),
    findForUpdate: (_, id) =>
      Effect.sync(() => Option.map(Option.fromNullable(receivables.get(id)), (r) => ({ ...r }))),
    setAmount: (_, id, amount) =>
      Effect.sync(() => {
        if (amount < 0) throw new Error(`receivable ${id} below zero`)
        receivables.set(id, { ...receivables.get(id)!, amount })
      }),
    markSettled: (_, id, at) => Effect.sync(() => void receivables.set(id, { ...receivables.get(id)!, settledAt: at })),
    oldestDue: () => Effect.succeed(Option.none()),
    hold: (_, transactionId, tag, rows) =>
      Effect.sync(() => {
        for (const h of rows) holds.push({ ...h, id: next(), tag, transactionId, released: false })
      }),
    release: (_, transactionId, tag) =>
      Effect.sync(() => {
        const open = holds.filter((h) => h.transactionId === transactionId && h.tag === tag && !h.released)
        for (const h of open) h.released = true
        return open.map(({ id, party, source, receivableId, amount }) => ({ id, party, source, receivableId, amount }))
      }),
    openTag: (_, transactionId, prefix) =>
      Effect.sync(() =>
        Option.fromNullable(
          holds.find((h) => h.transactionId === transactionId && h.tag.startsWith(prefix) && !h.released)?.tag
        )
      ),
    countTags: (_, transactionId, prefix) =>
      Effect.sync(
        () =>
          new Set(holds.filter((h) => h.transactionId === transactionId && h.tag.startsWith(prefix)).map((h) => h.tag))
            .size
      )
  })

  const noJob = () => Effect.void
  const scheduler = JobScheduler.of({
    expireAt: noJob,
    withdrawDueChargeSoon: noJob,
    confirmBoletosSoon: Effect.void,
    confirmBoletosAt: noJob,
    deliverAt: noJob,
    settleAt: noJob,
    payWithdrawalAt: noJob,
    sandboxDisputeAt: noJob,
    bankFilesCycleAt: noJob,
    bankFilesCycleSoon: Effect.void
  })

  /** What the books must satisfy at every step (docs/money.md). */
  const invariants = (parties: ReadonlyArray<string>) => {
    const problems: Array<string> = []
    const sums = new Map<string, number>()
    for (const e of entries.values()) {
      if (!isBalanced(e.postings)) problems.push(`entry ${e.key} does not balance`)
      for (const p of e.postings)
        if (p.party !== SYSTEM) sums.set(`${p.party}/${p.book}`, (sums.get(`${p.party}/${p.book}`) ?? 0) + p.amount)
    }
    for (const party of parties) {
      for (const book of BALANCES) {
        const key = `${party}/${book}`
        if ((balances.get(key) ?? 0) !== (sums.get(key) ?? 0)) problems.push(`${key} differs from its postings`)
      }
      const open = [...receivables.values()].filter((r) => r.party === party && r.settledAt === null)
      const pending = open.filter((r) => r.balance === "pending").reduce((s, r) => s + r.amount, 0)
      const reserve = open.filter((r) => r.balance === "reserved").reduce((s, r) => s + r.amount, 0)
      const held = holds
        .filter((h) => h.party === party && !h.released && h.tag.startsWith("dispute:"))
        .reduce((s, h) => s + h.amount, 0)
      const b = get(party)
      if (b.pending !== pending) problems.push(`${party} pending ${b.pending} ≠ receivables ${pending}`)
      if (b.reserved !== reserve + held) problems.push(`${party} reserved ${b.reserved} ≠ ${reserve} + held ${held}`)
      if (b.pending < 0 || b.reserved < 0) problems.push(`${party} pending or reserved below zero`)
    }
    return problems
  }

  const layer = Layer.mergeAll(
    Layer.succeed(Ledger, ledger),
    Layer.succeed(Receivables, port),
    Layer.succeed(JobScheduler, scheduler)
  )
  /** What a database transaction's rollback gives back: the state before the step. */
  const snapshot = () => {
    const saved = {
      entries: new Map(entries),
      balances: new Map(balances),
      receivables: new Map(receivables),
      holds: holds.map((h) => ({ ...h }))
    }
    return () => {
      entries.clear()
      for (const [k, v] of saved.entries) entries.set(k, v)
      balances.clear()
      for (const [k, v] of saved.balances) balances.set(k, v)
      receivables.clear()
      for (const [k, v] of saved.receivables) receivables.set(k, v)
      holds.splice(0, holds.length, ...saved.holds)
    }
  }
  const openReceivables = () => [...receivables.values()].filter((r) => r.settledAt === null)
  return { layer, invariants, balanceOf: get, openReceivables, entries, snapshot }
}

export type FakeBooks = ReturnType<typeof makeFakeBooks>
export type { Balance, Metrics, TransactionId }
