import { useState } from "preact/hooks"
import { get, query } from "../api.ts"
import { dateTime } from "../format.ts"
import { useOpsTexts } from "../opsTexts.ts"
import { useQuery } from "../query.ts"
import { Field, Page, Problem, Table, useAction } from "../ui.tsx"

interface LoggedRequest {
  id: string
  keyId: string
  method: string
  path: string
  status: number
  latencyMs: number
  requestId: string
  idempotencyKey: string | null
  body: string | null
  createdAt: string
}

interface LogPage {
  requests: LoggedRequest[]
  nextCursor: string | null
}

interface Key {
  id: string
  label: string
  prefix?: string
}

/**
 * The last requests of the account's API keys (docs/dashboard.md "Pages"; kept REQUEST_LOG_RETENTION_DAYS):
 * by key, as the API filters; the body, redacted by the server, on expand; "more" by cursor.
 */
export const RequestLog = () => {
  const { t, o } = useOpsTexts()
  const keys = useQuery("api-keys", () => get<{ primary: Key; restricted: Key[] }>("/api/dashboard/api-keys"))
  const [keyId, setKeyId] = useState("")
  const [more, setMore] = useState<LoggedRequest[]>([])
  const [cursor, setCursor] = useState<string | null | undefined>(undefined)
  const q = query({ keyId })
  const first = useQuery(`request-log${q}`, () => get<LogPage>(`/api/dashboard/request-log${q}`), 2_000)
  const next = cursor === undefined ? first.data?.nextCursor : cursor
  const loadMore = useAction(async () => {
    if (!next) return
    const page = await get<LogPage>(`/api/dashboard/request-log${query({ keyId, cursor: next })}`)
    setMore([...more, ...page.requests])
    setCursor(page.nextCursor)
  })
  const allKeys = keys.data ? [keys.data.primary, ...keys.data.restricted] : []
  const keyName = (id: string) => allKeys.find((k) => k.id === id)?.label ?? id.slice(0, 8)
  const seen = new Set((first.data?.requests ?? []).map((r) => r.id))
  const rows = [...(first.data?.requests ?? []), ...more.filter((r) => !seen.has(r.id))]
  return (
    <Page title={t.requestLog}>
      <form class="filters" aria-label={t.filter} onSubmit={(e) => e.preventDefault()}>
        <Field id="rl-key" label={o.apiKey}>
          <select
            id="rl-key"
            value={keyId}
            onChange={(e) => {
              setMore([])
              setCursor(undefined)
              setKeyId(e.currentTarget.value)
            }}
          >
            <option value="">{o.allKeys}</option>
            {allKeys.map((k) => (
              <option value={k.id} key={k.id}>
                {k.label}
              </option>
            ))}
          </select>
        </Field>
      </form>
      <Problem error={first.error ?? loadMore.error ?? keys.error} />
      {first.data ? (
        <Table
          caption={t.requestLog}
          rows={rows}
          rowKey={(r) => r.id}
          columns={[
            { label: t.date, cell: (r) => dateTime(r.createdAt) },
            {
              // One cell for what identifies the request, so that the table fits a laptop's width.
              label: o.path,
              cell: (r) => (
                <div class="logged">
                  <code class="secret" data-request-path>
                    {r.method} {r.path}
                  </code>
                  <span class="muted small">
                    {o.requestId}: <code class="secret">{r.requestId}</code>
                  </span>
                  {r.idempotencyKey ? (
                    <span class="muted small">
                      {o.idempotencyKey}: <code class="secret">{r.idempotencyKey}</code>
                    </span>
                  ) : null}
                  {r.body ? (
                    <details class="request-body">
                      <summary>
                        {o.redactedBody}
                        <span class="sr-only"> {r.requestId}</span>
                      </summary>
                      <pre data-request-body>{r.body}</pre>
                    </details>
                  ) : null}
                </div>
              )
            },
            { label: t.status, cell: (r) => <span data-request-status>{r.status}</span>, numeric: true },
            { label: o.latency, cell: (r) => o.ms(r.latencyMs), numeric: true },
            { label: o.apiKey, cell: (r) => keyName(r.keyId) }
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
