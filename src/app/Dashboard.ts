import { Effect } from "effect"
import type { AccountId, TransactionId } from "../domain/ids.ts"
import type { PaymentMethod, TransactionRecord } from "../domain/transaction.ts"
import {
  type DashboardFilter,
  DashboardReads,
  type DaySummary,
  type TransactionTrail
} from "../ports/DashboardReads.ts"
import { EventPayloads } from "../ports/EventPayloads.ts"
import { Tenancy } from "../ports/Modes.ts"
import type { ListKey } from "../ports/Page.ts"
import { fn } from "../spans.ts"
import { Transactions } from "./Transactions.ts"

/** Sums of a set of transactions (docs/dashboard.md "Summary" defines each figure). */
export interface Figures {
  readonly count: number
  readonly paid: number
  readonly refused: number
  readonly gross: number
  readonly refunded: number
  readonly fees: number
  /** gross − refunded − fees. */
  readonly net: number
  /** paid ÷ (paid + refused), null when nothing was decided. */
  readonly approvalRate: number | null
}

export interface Summary {
  readonly totals: Figures
  readonly byMethod: ReadonlyArray<Figures & { readonly method: PaymentMethod }>
  readonly byDay: ReadonlyArray<Figures & { readonly day: string; readonly method: PaymentMethod }>
}

/** One line of a transaction's history, oldest first. */
export interface TimelineEntry {
  readonly at: Date
  readonly kind: "created" | "antifraud" | "authorized" | "paid" | "refund" | "dispute" | "event" | "delivery"
  readonly title: string
  readonly detail: Readonly<Record<string, unknown>>
}

const figures = (rows: ReadonlyArray<DaySummary>): Figures => {
  const sum = (pick: (r: DaySummary) => number) => rows.reduce((n, r) => n + pick(r), 0)
  const paid = sum((r) => r.paid)
  const refused = sum((r) => r.refused)
  const gross = sum((r) => r.gross)
  const refunded = sum((r) => r.refunded)
  const fees = sum((r) => r.fees)
  return {
    count: sum((r) => r.count),
    paid,
    refused,
    gross,
    refunded,
    fees,
    net: gross - refunded - fees,
    approvalRate: paid + refused === 0 ? null : paid / (paid + refused)
  }
}

const DISPUTE_EVENTS = new Set(["transaction.chargeback", "pix.med_received", "pix.med_updated"])

/** The records around a transaction, each event with its payload as delivered (EventPayloads). */
export interface RenderedTrail extends Omit<TransactionTrail, "events"> {
  readonly events: ReadonlyArray<{
    readonly id: string
    readonly type: string
    readonly payload: unknown
    readonly createdAt: Date
  }>
}

/** The history of a transaction from its row and the records around it (docs/dashboard.md "Timeline"). */
export const timeline = (t: TransactionRecord, trail: RenderedTrail): ReadonlyArray<TimelineEntry> => {
  const entries: Array<TimelineEntry> = [
    { at: t.createdAt, kind: "created", title: "created", detail: { method: t.method, amountTotal: t.amountTotal } }
  ]
  if (t.antifraud !== null) {
    entries.push({
      at: t.createdAt,
      kind: "antifraud",
      title: `antifraud ${t.antifraud.decision}`,
      detail: {
        decision: t.antifraud.decision,
        score: t.antifraud.score,
        reason: t.antifraud.reason,
        status: t.antifraud.status
      }
    })
  }
  if (t.paidAt !== null) {
    if (t.details.card?.authorizationCode !== undefined) {
      entries.push({
        at: t.paidAt,
        kind: "authorized",
        title: "authorized",
        detail: { authorizationCode: t.details.card.authorizationCode }
      })
    }
    entries.push({ at: t.paidAt, kind: "paid", title: "paid", detail: { amountTotal: t.amountTotal } })
  }
  for (const r of trail.refunds) {
    entries.push({
      at: r.createdAt,
      kind: "refund",
      title: `refund ${r.status.toLowerCase()}`,
      detail: { id: r.id, amount: r.amount, reason: r.reason, status: r.status, completedAt: r.completedAt }
    })
  }
  for (const e of trail.events) {
    entries.push({
      at: e.createdAt,
      kind: DISPUTE_EVENTS.has(e.type) ? "dispute" : "event",
      title: e.type,
      detail: { id: e.id, type: e.type, payload: e.payload }
    })
  }
  for (const d of trail.deliveries) {
    entries.push({
      at: d.createdAt,
      kind: "delivery",
      title: `webhook ${d.event} ${d.status.toLowerCase()}`,
      detail: { ...d }
    })
  }
  // Stable: entries of one instant keep the order above (created before its analysis, and so on).
  return entries
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => a.entry.at.getTime() - b.entry.at.getTime() || a.i - b.i)
    .map(({ entry }) => entry)
}

/** The merchant dashboard's reads (docs/dashboard.md); its writes are the services the APIs share. */
export class Dashboard extends Effect.Service<Dashboard>()("Dashboard", {
  effect: Effect.gen(function* () {
    const reads = yield* DashboardReads
    const transactions = yield* Transactions
    const payloads = yield* EventPayloads
    const tenancy = yield* Tenancy
    return {
      summary: fn("Dashboard.summary")(function* (accountId: AccountId, from: Date, before: Date) {
        const rows = yield* reads.summary(accountId, from, before)
        const methods = [...new Set(rows.map((r) => r.method))].sort()
        return {
          totals: figures(rows),
          byMethod: methods.map((method) => ({ method, ...figures(rows.filter((r) => r.method === method)) })),
          byDay: rows.map((r) => ({ day: r.day, method: r.method, ...figures([r]) }))
        } satisfies Summary
      }),
      transactions: (accountId: AccountId, filter: DashboardFilter, after: ListKey | undefined, limit: number) =>
        reads.transactions(accountId, filter, after, limit),
      detail: fn("Dashboard.detail")(function* (accountId: AccountId, id: TransactionId) {
        const view = yield* transactions.getView(accountId, id)
        const recorded = yield* reads.trail(accountId, id)
        // Each event's payload as its delivery sends it and GET /api/events shows it: rendered by the same
        // EventPayloads in the tenant's mode (app/Events.ts), from the event as recorded.
        const live = (yield* tenancy.modeOf(accountId)) === "live"
        const trail: RenderedTrail = {
          ...recorded,
          events: recorded.events.map((e) => ({
            id: e.id,
            type: e.type,
            payload: JSON.parse(payloads.render(e.stored, live)),
            createdAt: e.createdAt
          }))
        }
        return { ...view, trail, timeline: timeline(view.transaction, trail) }
      }),
      customers: (accountId: AccountId, search: string | undefined, after: ListKey | undefined, limit: number) =>
        reads.customers(accountId, search, after, limit)
    }
  }),
  dependencies: [Transactions.Default]
}) {}
