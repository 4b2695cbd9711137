import { useState } from "preact/hooks"
import { Link } from "wouter-preact"
import { download, get, type Page as ListPage, query, type Transaction } from "../api.ts"
import { brl, dateTime, daysAgo, parseMoney, today } from "../format.ts"
import { STATUSES, statusLabel, useTexts } from "../i18n.ts"
import { useQuery } from "../query.ts"
import { Field, Page, Problem, Table, useAction } from "../ui.tsx"

interface Filters {
  from: string
  to: string
  status: string
  method: string
  amountMin: string
  amountMax: string
  document: string
  metadataKey: string
  metadataValue: string
}

const initial = (): Filters => ({
  from: daysAgo(30),
  to: today(),
  status: "",
  method: "",
  amountMin: "",
  amountMax: "",
  document: "",
  metadataKey: "",
  metadataValue: ""
})

/** The API's words for the filters; the list and its CSV take the same ones. */
const params = (f: Filters) => ({
  from: f.from,
  to: f.to,
  status: f.status,
  method: f.method,
  amount_min: parseMoney(f.amountMin) ?? undefined,
  amount_max: parseMoney(f.amountMax) ?? undefined,
  document: f.document,
  metadata_key: f.metadataKey,
  metadata_value: f.metadataValue
})

export const Transactions = () => {
  const t = useTexts()
  const [draft, setDraft] = useState<Filters>(initial)
  const [applied, setApplied] = useState<Filters>(draft)
  const [more, setMore] = useState<Transaction[]>([])
  const [cursor, setCursor] = useState<string | null | undefined>(undefined)
  const q = query(params(applied))
  // The first page is polled every second: a payment made elsewhere shows without a reload.
  const first = useQuery(`transactions${q}`, () => get<ListPage<Transaction>>(`/api/dashboard/transactions${q}`), 1_000)
  const next = cursor === undefined ? first.data?.nextCursor : cursor
  const loadMore = useAction(async () => {
    if (!next) return
    const page = await get<ListPage<Transaction>>(
      `/api/dashboard/transactions${query({ ...params(applied), cursor: next })}`
    )
    setMore([...more, ...page.data])
    setCursor(page.nextCursor)
  })
  const exportCsv = useAction(() =>
    download(`/api/dashboard/exports/transactions.csv${q}`, `transacoes-${applied.from}-${applied.to}.csv`)
  )
  const set = (k: keyof Filters) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [k]: e.currentTarget.value })
  const seen = new Set((first.data?.data ?? []).map((r) => r.id))
  const rows = [...(first.data?.data ?? []), ...more.filter((r) => !seen.has(r.id))]
  return (
    <Page
      title={t.transactions}
      actions={
        <button type="button" class="secondary" onClick={() => void exportCsv.run()} disabled={exportCsv.busy}>
          {t.exportCsv}
        </button>
      }
    >
      <form
        class="filters"
        aria-label={t.filter}
        onSubmit={(e) => {
          e.preventDefault()
          setMore([])
          setCursor(undefined)
          setApplied(draft)
        }}
      >
        <Field id="f-from" label={t.from}>
          <input id="f-from" type="date" value={draft.from} onInput={set("from")} />
        </Field>
        <Field id="f-to" label={t.to}>
          <input id="f-to" type="date" value={draft.to} onInput={set("to")} />
        </Field>
        <Field id="f-status" label={t.status}>
          <select id="f-status" value={draft.status} onChange={set("status")}>
            <option value="">{t.all}</option>
            {STATUSES.map((s) => (
              <option value={s} key={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="f-method" label={t.method}>
          <select id="f-method" value={draft.method} onChange={set("method")}>
            <option value="">{t.all}</option>
            <option value="CARD">Cartão / Card</option>
            <option value="PIX">PIX</option>
            <option value="BOLETO">Boleto</option>
          </select>
        </Field>
        <Field id="f-min" label={t.amountMin}>
          <input id="f-min" inputMode="decimal" value={draft.amountMin} onInput={set("amountMin")} />
        </Field>
        <Field id="f-max" label={t.amountMax}>
          <input id="f-max" inputMode="decimal" value={draft.amountMax} onInput={set("amountMax")} />
        </Field>
        <Field id="f-doc" label={t.document}>
          <input id="f-doc" inputMode="numeric" value={draft.document} onInput={set("document")} />
        </Field>
        <Field id="f-mk" label={t.metadataKey}>
          <input id="f-mk" value={draft.metadataKey} onInput={set("metadataKey")} />
        </Field>
        <Field id="f-mv" label={t.metadataValue}>
          <input id="f-mv" value={draft.metadataValue} onInput={set("metadataValue")} />
        </Field>
        <div class="actions">
          <button type="submit">{t.filter}</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              const fresh = initial()
              setDraft(fresh)
              setApplied(fresh)
              setMore([])
              setCursor(undefined)
            }}
          >
            {t.clear}
          </button>
        </div>
      </form>
      <Problem error={first.error ?? loadMore.error ?? exportCsv.error} />
      <p class="muted live-hint">{t.liveHint}</p>
      {first.data ? (
        <div aria-live="polite" aria-relevant="additions">
          <Table
            caption={t.transactions}
            rows={rows}
            rowKey={(r) => r.id}
            columns={[
              {
                label: t.date,
                cell: (r) => (
                  <Link href={`/transactions/${r.id}`} data-transaction={r.id}>
                    {dateTime(r.createdAt)}
                  </Link>
                )
              },
              { label: t.method, cell: (r) => (r.card ? `${r.method} ${r.card.brand} •${r.card.last4}` : r.method) },
              { label: t.status, cell: (r) => <span class={`badge s-${r.status}`}>{statusLabel(r.status)}</span> },
              { label: t.buyer, cell: (r) => r.buyer?.name ?? "—" },
              { label: t.amount, cell: (r) => brl(r.amountTotal), numeric: true }
            ]}
          />
        </div>
      ) : (
        <p class="muted">{t.loading}</p>
      )}
      {next ? (
        <button type="button" class="secondary" onClick={() => void loadMore.run()} disabled={loadMore.busy}>
          {t.more}
        </button>
      ) : null}
    </Page>
  )
}
