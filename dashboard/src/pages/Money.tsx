import { useState } from "preact/hooks"
import { type Balance, download, get, type Page as ListPage, post, query } from "../api.ts"
import { DayChart } from "../chart.tsx"
import { brl, dateTime, daysAgo, parseMoney, today } from "../format.ts"
import { useTexts } from "../i18n.ts"
import { invalidate, useQuery } from "../query.ts"
import { Field, Page, Problem, Table, useAction } from "../ui.tsx"

interface Posting {
  id: string
  book: string
  type: string
  amount: number
  transactionId: string | null
  description: string
  createdAt: string
}

const spDay = (at: Date) => new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(at)

/**
 * The available balance at the end of each day of the period (São Paulo), walked back from today's
 * balance through the period's postings on the available book: exact when the period ends today (the
 * default) and holds at most the 200 postings the page reads.
 */
const dailyAvailable = (available: number, postings: ReadonlyArray<Posting>, from: string, to: string) => {
  const newestFirst = [...postings].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
  const days: string[] = []
  for (let at = Date.parse(`${to}T12:00:00-03:00`); spDay(new Date(at)) >= from; at -= 86_400_000) {
    days.push(spDay(new Date(at)))
  }
  const values: number[] = []
  let running = available
  let i = 0
  for (const day of days) {
    // Postings after this day's end are undone to get the balance at its end.
    while (i < newestFirst.length && spDay(new Date(newestFirst[i]!.createdAt)) > day) {
      if (newestFirst[i]!.book === "available") running -= newestFirst[i]!.amount
      i++
    }
    values.push(running)
  }
  return { days: days.reverse(), values: values.reverse(), newestFirst }
}

export const BalancePage = () => {
  const t = useTexts()
  const [from, setFrom] = useState(daysAgo(30))
  const [to, setTo] = useState(today())
  const q = query({ from, to, limit: 200 })
  const balance = useQuery("balance", () => get<Balance>("/api/dashboard/balance"), 5_000)
  const statement = useQuery(`financials${q}`, () => get<ListPage<Posting>>(`/api/dashboard/financials${q}`), 5_000)
  const exportCsv = useAction(() =>
    download(`/api/dashboard/exports/financials.csv${query({ from, to })}`, `extrato-${from}-${to}.csv`)
  )
  const chart =
    balance.data && statement.data ? dailyAvailable(balance.data.available, statement.data.data, from, to) : null
  return (
    <Page
      title={t.balance}
      actions={
        <button type="button" class="secondary" onClick={() => void exportCsv.run()}>
          {t.exportCsv}
        </button>
      }
    >
      <Problem error={balance.error ?? statement.error ?? exportCsv.error} />
      <div class="tiles">
        {(["available", "pending", "reserved"] as const).map((k) => (
          <div class="tile" key={k}>
            <div class="tile-label">{t[k]}</div>
            <div class="tile-value">{balance.data ? brl(balance.data[k]) : "…"}</div>
          </div>
        ))}
      </div>
      <form class="filters" aria-label={t.filter} onSubmit={(e) => e.preventDefault()}>
        <Field id="b-from" label={t.from}>
          <input id="b-from" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </Field>
        <Field id="b-to" label={t.to}>
          <input id="b-to" type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </Field>
      </form>
      {chart && chart.days.length > 0 ? (
        <DayChart label={`${t.available} (${t.financials})`} days={chart.days} values={chart.values} format={brl} />
      ) : null}
      <h2>{t.postings}</h2>
      {statement.data ? (
        <Table
          caption={t.postings}
          rows={chart?.newestFirst ?? statement.data.data}
          rowKey={(p) => p.id}
          columns={[
            { label: t.date, cell: (p) => dateTime(p.createdAt) },
            { label: t.book, cell: (p) => t[p.book as "available" | "pending" | "reserved"] ?? p.book },
            { label: t.type, cell: (p) => p.type },
            { label: t.description, cell: (p) => p.description },
            { label: t.amount, cell: (p) => brl(p.amount), numeric: true }
          ]}
        />
      ) : (
        <p class="muted">{t.loading}</p>
      )}
    </Page>
  )
}

interface Withdrawal {
  id: string
  amount: number
  status: string
  bankAccount: { bankCode: string; agency: string; account: string; accountDigit: string }
  failureReason: string | null
  createdAt: string
}

export const Withdrawals = () => {
  const t = useTexts()
  const list = useQuery("withdrawals", () => get<ListPage<Withdrawal>>("/api/dashboard/withdrawals"), 5_000)
  const [form, setForm] = useState({
    amount: "",
    bank_code: "",
    agency: "",
    account: "",
    account_digit: "",
    type: "checking"
  })
  const set = (k: keyof typeof form) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [k]: e.currentTarget.value })
  const create = useAction(async () => {
    const amount = parseMoney(form.amount)
    const { amount: _, ...bank } = form
    await post("/api/dashboard/withdrawals", { amount: amount ?? -1, bankAccount: { ...bank, agency_digit: null } })
    invalidate("withdrawals")
    invalidate("balance")
  })
  return (
    <Page title={t.withdrawals}>
      <section class="panel" aria-labelledby="w-title">
        <h2 id="w-title">{t.requestWithdrawal}</h2>
        <form
          class="filters"
          onSubmit={(e) => {
            e.preventDefault()
            void create.run()
          }}
        >
          <Field id="w-amount" label={t.amount}>
            <input id="w-amount" inputMode="decimal" required value={form.amount} onInput={set("amount")} />
          </Field>
          <Field id="w-bank" label={t.bankCode}>
            <input id="w-bank" inputMode="numeric" required value={form.bank_code} onInput={set("bank_code")} />
          </Field>
          <Field id="w-agency" label={t.agency}>
            <input id="w-agency" inputMode="numeric" required value={form.agency} onInput={set("agency")} />
          </Field>
          <Field id="w-account" label={t.account}>
            <input id="w-account" inputMode="numeric" required value={form.account} onInput={set("account")} />
          </Field>
          <Field id="w-digit" label={t.accountDigit}>
            <input id="w-digit" required value={form.account_digit} onInput={set("account_digit")} />
          </Field>
          <Field id="w-type" label={t.accountType}>
            <select id="w-type" value={form.type} onChange={set("type")}>
              <option value="checking">{t.checking}</option>
              <option value="savings">{t.savings}</option>
            </select>
          </Field>
          <div class="actions">
            <button type="submit" disabled={create.busy}>
              {t.request}
            </button>
          </div>
        </form>
        <Problem error={create.error} />
      </section>
      <Problem error={list.error} />
      {list.data ? (
        <Table
          caption={t.withdrawals}
          rows={list.data.data}
          rowKey={(w) => w.id}
          columns={[
            { label: t.date, cell: (w) => dateTime(w.createdAt) },
            { label: t.status, cell: (w) => w.status },
            {
              label: t.account,
              cell: ({ bankAccount: b }) => `${b.bankCode} / ${b.agency} / ${b.account}-${b.accountDigit}`
            },
            { label: t.failure, cell: (w) => w.failureReason ?? "—" },
            { label: t.amount, cell: (w) => brl(w.amount), numeric: true }
          ]}
        />
      ) : (
        <p class="muted">{t.loading}</p>
      )}
    </Page>
  )
}
