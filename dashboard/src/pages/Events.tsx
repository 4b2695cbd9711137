import { useState } from "preact/hooks"
import { Link } from "wouter-preact"
import { type EventRecord, get, query } from "../api.ts"
import { dateTime, dayEnd, dayStart, daysAgo, today } from "../format.ts"
import { useOpsTexts } from "../opsTexts.ts"
import { useQuery } from "../query.ts"
import { Field, Page, Problem, Table, useAction } from "../ui.tsx"

/** The event names of docs/webhooks.md, and the test event of "send test event". */
export const EVENT_TYPES = [
  "transaction.created",
  "transaction.paid",
  "transaction.declined",
  "transaction.failed",
  "transaction.refunded",
  "transaction.partially_refunded",
  "transaction.chargeback",
  "pix.med_received",
  "pix.med_updated",
  "webhook.test"
]

interface EventsPage {
  events: EventRecord[]
  nextCursor: string | null
}

interface Filters {
  type: string
  from: string
  to: string
}

/** São Paulo days as the instants they start and end (a day of daylight saving before 2019 too). */
const params = (f: Filters) => ({
  type: f.type,
  createdFrom: f.from ? dayStart(f.from) : undefined,
  createdTo: f.to ? dayEnd(f.to) : undefined
})

/** The account's events of the last 30 days, newest first, by type and period, "more" by cursor. */
export const Events = () => {
  const { t, o } = useOpsTexts()
  const initial = (): Filters => ({ type: "", from: daysAgo(30), to: today() })
  const [draft, setDraft] = useState<Filters>(initial)
  const [applied, setApplied] = useState<Filters>(draft)
  const [more, setMore] = useState<EventRecord[]>([])
  const [cursor, setCursor] = useState<string | null | undefined>(undefined)
  const q = query(params(applied))
  const first = useQuery(`events${q}`, () => get<EventsPage>(`/api/dashboard/events${q}`), 2_000)
  const next = cursor === undefined ? first.data?.nextCursor : cursor
  const loadMore = useAction(async () => {
    if (!next) return
    const page = await get<EventsPage>(`/api/dashboard/events${query({ ...params(applied), cursor: next })}`)
    setMore([...more, ...page.events])
    setCursor(page.nextCursor)
  })
  const set = (k: keyof Filters) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [k]: e.currentTarget.value })
  const seen = new Set((first.data?.events ?? []).map((r) => r.id))
  const rows = [...(first.data?.events ?? []), ...more.filter((r) => !seen.has(r.id))]
  return (
    <Page title={t.events}>
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
        <Field id="e-type" label={o.eventType}>
          <select id="e-type" value={draft.type} onChange={set("type")}>
            <option value="">{t.all}</option>
            {EVENT_TYPES.map((type) => (
              <option value={type} key={type}>
                {type}
              </option>
            ))}
          </select>
        </Field>
        <Field id="e-from" label={t.from}>
          <input id="e-from" type="date" value={draft.from} onInput={set("from")} />
        </Field>
        <Field id="e-to" label={t.to}>
          <input id="e-to" type="date" value={draft.to} onInput={set("to")} />
        </Field>
        <div class="actions">
          <button type="submit">{t.filter}</button>
        </div>
      </form>
      <Problem error={first.error ?? loadMore.error} />
      {first.data ? (
        <Table
          caption={t.events}
          rows={rows}
          rowKey={(r) => r.id}
          columns={[
            {
              label: t.date,
              cell: (r) => (
                <Link href={`/events/${r.id}`} data-event={r.id}>
                  {dateTime(r.createdAt)}
                </Link>
              )
            },
            { label: t.type, cell: (r) => <code>{r.type}</code> },
            {
              label: o.transaction,
              cell: (r) =>
                r.transactionId ? (
                  <Link href={`/transactions/${r.transactionId}`}>
                    <code>{r.transactionId.slice(0, 8)}</code>
                    <span class="sr-only">{r.transactionId}</span>
                  </Link>
                ) : (
                  "—"
                )
            }
          ]}
        />
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

/** One event with its payload: the body its webhook delivery sends. */
export const EventDetail = (props: { id: string }) => {
  const { t, o } = useOpsTexts()
  const found = useQuery(`event:${props.id}`, () => get<EventRecord>(`/api/dashboard/events/${props.id}`))
  const e = found.data
  return (
    <Page title={e ? `${o.event} ${e.type}` : o.event} actions={<Link href="/events">{t.back}</Link>}>
      <Problem error={found.error} />
      {e ? (
        <>
          <dl class="facts">
            <div>
              <dt>ID</dt>
              <dd>
                <code>{e.id}</code>
              </dd>
            </div>
            <div>
              <dt>{t.type}</dt>
              <dd>
                <code>{e.type}</code>
              </dd>
            </div>
            <div>
              <dt>{t.created}</dt>
              <dd>{dateTime(e.createdAt)}</dd>
            </div>
            <div>
              <dt>{o.transaction}</dt>
              <dd>
                {e.transactionId ? (
                  <Link href={`/transactions/${e.transactionId}`}>
                    <code>{e.transactionId}</code>
                  </Link>
                ) : (
                  "—"
                )}
              </dd>
            </div>
          </dl>
          <h2>{o.payload}</h2>
          <pre data-payload>{JSON.stringify(e.payload, null, 2)}</pre>
        </>
      ) : (
        <p class="muted">{t.loading}</p>
      )}
    </Page>
  )
}
