import { Link } from "wouter-preact"
import { type Balance, get, type Page as ListPage, type Summary, type Transaction } from "../api.ts"
import { DayChart } from "../chart.tsx"
import { brl, dateTime, percent } from "../format.ts"
import { statusLabel, useTexts } from "../i18n.ts"
import { useQuery } from "../query.ts"
import { Page, Problem, Table } from "../ui.tsx"

/** Every day of the period (São Paulo), those without sales at zero, so the axis spans the period. */
const periodDays = (summary: Summary) => {
  const day = (d: Date) => new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(d)
  const days: string[] = []
  const end = new Date(summary.to).getTime() - 1
  for (let at = new Date(summary.from).getTime(); at <= end; at += 86_400_000) days.push(day(new Date(at)))
  const last = day(new Date(end))
  if (days[days.length - 1] !== last) days.push(last)
  return [...new Set(days)]
}

const byDay = (summary: Summary) => {
  const days = periodDays(summary)
  const gross = days.map((d) => summary.byDay.filter((r) => r.day === d).reduce((n, r) => n + r.gross, 0))
  const rate = days.map((d) => {
    const rows = summary.byDay.filter((r) => r.day === d)
    const paid = rows.reduce((n, r) => n + r.paid, 0)
    const decided = paid + rows.reduce((n, r) => n + r.refused, 0)
    return decided === 0 ? null : paid / decided
  })
  return { days, gross, rate }
}

export const Home = () => {
  const t = useTexts()
  const balance = useQuery("balance", () => get<Balance>("/api/dashboard/balance"), 5_000)
  const summary = useQuery("summary", () => get<Summary>("/api/dashboard/summary"), 10_000)
  const recent = useQuery("recent", () => get<ListPage<Transaction>>("/api/dashboard/transactions?limit=8"), 1_000)
  const chart = summary.data ? byDay(summary.data) : undefined
  return (
    <Page title={t.home}>
      <Problem error={balance.error ?? summary.error ?? recent.error} />
      <div class="tiles" aria-live="polite">
        {(["available", "pending", "reserved"] as const).map((k) => (
          <div class="tile" key={k}>
            <div class="tile-label">{t[k]}</div>
            <div class="tile-value">{balance.data ? brl(balance.data[k]) : "…"}</div>
          </div>
        ))}
      </div>
      {summary.data ? (
        <div class="tiles">
          <div class="tile">
            <div class="tile-label">
              {t.gross} · {t.summaryOf}
            </div>
            <div class="tile-value">{brl(summary.data.totals.gross)}</div>
          </div>
          <div class="tile">
            <div class="tile-label">{t.net}</div>
            <div class="tile-value">{brl(summary.data.totals.net)}</div>
          </div>
          <div class="tile">
            <div class="tile-label">{t.approvalRate}</div>
            <div class="tile-value">{percent(summary.data.totals.approvalRate)}</div>
          </div>
        </div>
      ) : null}
      {chart ? (
        <div class="charts">
          <DayChart label={t.volume} days={chart.days} values={chart.gross} format={brl} />
          <DayChart
            label={t.approval}
            days={chart.days}
            values={chart.rate}
            format={(v) => percent(v)}
            range={[0, 1]}
          />
        </div>
      ) : null}
      <h2>{t.recent}</h2>
      {recent.data ? (
        <Table
          caption={t.recent}
          rows={recent.data.data}
          rowKey={(r) => r.id}
          columns={[
            { label: t.date, cell: (r) => <Link href={`/transactions/${r.id}`}>{dateTime(r.createdAt)}</Link> },
            { label: t.method, cell: (r) => r.method },
            { label: t.status, cell: (r) => statusLabel(r.status) },
            { label: t.amount, cell: (r) => brl(r.amountTotal), numeric: true }
          ]}
        />
      ) : (
        <p class="muted">{t.loading}</p>
      )}
    </Page>
  )
}
