import { useState } from "preact/hooks"
import { type Delivery, get, post, query, request } from "../api.ts"
import { dateTime } from "../format.ts"
import { useOpsTexts } from "../opsTexts.ts"
import { invalidate, useQuery } from "../query.ts"
import { Confirm, Field, Page, Problem, useAction } from "../ui.tsx"
import { DeliveryItem } from "./DeliveryItem.tsx"
import { EVENT_TYPES } from "./Events.tsx"

interface Webhook {
  url: string
  secret: string
  updatedAt: string
}

interface Rotated extends Webhook {
  previousSecretExpiresAt: string
}

/** The secret's prefix and last 4: the whole one is shown only when issued (set or rotate). */
const mask = (secret: string) => `${secret.slice(0, 6)}…${secret.slice(-4)}`

/** The overlaps offered, in seconds (docs/webhooks.md "Secret rotation": default one day, at most seven). */
const OVERLAPS = [3_600, 86_400, 7 * 86_400]

/** A São Paulo wall-clock time from <input type="datetime-local"> as an instant with its offset. */
const saoPauloInstant = (local: string) => `${local.length === 16 ? `${local}:00` : local}-03:00`

/**
 * The webhook endpoint and its operations (docs/dashboard.md "Pages", docs/webhooks.md): set or remove
 * the URL; rotate the secret (the new one shown once, with the overlap during which both sign); send a
 * test event; the deliveries with their request and response, each resendable; resend the failed ones
 * since a time.
 */
export const Webhooks = () => {
  const { t, o } = useOpsTexts()
  const hook = useQuery("webhook", () =>
    get<Webhook>("/api/dashboard/webhook").catch((e: { status?: number }) => {
      if (e.status === 404) return null
      throw e
    })
  )
  const [url, setUrl] = useState("")
  const save = useAction(async () => {
    const saved = await request<Webhook>("PUT", "/api/dashboard/webhook", { url })
    invalidate("webhook")
    return saved
  })
  const remove = useAction(async () => {
    await request("DELETE", "/api/dashboard/webhook")
    invalidate("webhook")
  })
  const [overlap, setOverlap] = useState(String(OVERLAPS[1]))
  const [asking, setAsking] = useState(false)
  const rotate = useAction(async () => {
    const rotated = await post<Rotated>("/api/dashboard/webhooks/rotate-secret", { overlapSeconds: Number(overlap) })
    setAsking(false)
    invalidate("webhook")
    return rotated
  })
  const test = useAction(async () => {
    const sent = await post<Delivery>("/api/dashboard/webhooks/test")
    invalidate("deliveries")
    return sent
  })
  const [since, setSince] = useState("")
  const resendFailed = useAction(async () => {
    const r = await post<{ resent: number }>("/api/dashboard/webhooks/deliveries/resend-failed", {
      since: saoPauloInstant(since)
    })
    invalidate("deliveries")
    return r
  })
  const [filter, setFilter] = useState({ status: "", event: "" })
  const q = query(filter)
  const deliveries = useQuery(
    `deliveries${q}`,
    () => get<{ deliveries: Delivery[] }>(`/api/dashboard/webhooks/deliveries${q}`),
    2_000
  )
  // The secret this page shows is the one issued last by "rotate" on it; otherwise only its end.
  const shown = rotate.result
  return (
    <Page title={t.webhooks}>
      <Problem error={hook.error ?? save.error ?? remove.error} />
      {hook.data ? (
        <section class="panel" aria-labelledby="wh-title">
          <h2 id="wh-title">{t.webhookUrl}</h2>
          <p>
            <code class="secret">{hook.data.url}</code>
          </p>
          <p>
            {t.secret}: <code class="secret">{mask(hook.data.secret)}</code>
          </p>
          {save.result ? (
            <div class="notice panel" role="status">
              <p>{o.newSecret}</p>
              <p>
                <code class="secret">{save.result.secret}</code>
              </p>
            </div>
          ) : null}
          <p class="muted">
            {t.updated}: {dateTime(hook.data.updatedAt)}
          </p>
          <div class="actions">
            <button type="button" onClick={() => void test.run()} disabled={test.busy}>
              {o.sendTest}
            </button>
            <button type="button" class="danger" onClick={() => void remove.run()}>
              {t.remove}
            </button>
          </div>
          {test.result ? (
            <p role="status" data-test-sent>
              {o.testSent(test.result.deliveryId)}
            </p>
          ) : null}
          <Problem error={test.error} />
        </section>
      ) : hook.data === null ? (
        <p class="muted">{t.noWebhook}</p>
      ) : null}
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault()
          void save.run()
        }}
      >
        <Field id="wh-url" label={t.webhookUrl}>
          <input id="wh-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={save.busy}>
          {t.save}
        </button>
      </form>
      {hook.data ? (
        <section class="panel" aria-labelledby="rot-title">
          <h2 id="rot-title">{o.rotate}</h2>
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault()
              setAsking(true)
            }}
          >
            <Field id="rot-overlap" label={o.overlap}>
              <select id="rot-overlap" value={overlap} onChange={(e) => setOverlap(e.currentTarget.value)}>
                {OVERLAPS.map((s) => (
                  <option value={String(s)} key={s}>
                    {s < 86_400 ? o.hours(s / 3_600) : o.days(s / 86_400)}
                  </option>
                ))}
              </select>
            </Field>
            <button type="submit" disabled={rotate.busy}>
              {o.rotate}
            </button>
          </form>
          {shown ? (
            <div class="notice panel" role="status" data-rotated>
              <p>{o.newSecret}</p>
              <p>
                <code class="secret" data-new-secret>
                  {shown.secret}
                </code>
              </p>
              <p>{o.overlapUntil(dateTime(shown.previousSecretExpiresAt))}</p>
            </div>
          ) : null}
          <Problem error={rotate.error} />
          {asking ? (
            <Confirm
              open
              titleId="rotate-title"
              title={o.rotateConfirm}
              busy={rotate.busy}
              onCancel={() => setAsking(false)}
              onConfirm={() => void rotate.run()}
            />
          ) : null}
        </section>
      ) : null}
      <section aria-labelledby="dl-title">
        <h2 id="dl-title">{o.deliveries}</h2>
        <form class="filters" aria-label={t.filter} onSubmit={(e) => e.preventDefault()}>
          <Field id="dl-status" label={t.status}>
            <select
              id="dl-status"
              value={filter.status}
              onChange={(e) => setFilter({ ...filter, status: e.currentTarget.value })}
            >
              <option value="">{t.all}</option>
              {Object.entries(o.deliveryStatus).map(([k, label]) => (
                <option value={k} key={k}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          <Field id="dl-event" label={o.eventType}>
            <select
              id="dl-event"
              value={filter.event}
              onChange={(e) => setFilter({ ...filter, event: e.currentTarget.value })}
            >
              <option value="">{t.all}</option>
              {EVENT_TYPES.filter((e) => e !== "webhook.test").map((type) => (
                <option value={type} key={type}>
                  {type}
                </option>
              ))}
            </select>
          </Field>
        </form>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault()
            void resendFailed.run()
          }}
        >
          <Field id="dl-since" label={`${o.resendFailed} ${o.since}`}>
            <input
              id="dl-since"
              type="datetime-local"
              required
              value={since}
              onInput={(e) => setSince(e.currentTarget.value)}
            />
          </Field>
          <button type="submit" class="secondary" disabled={resendFailed.busy}>
            {t.resend}
          </button>
        </form>
        {resendFailed.result ? (
          <p role="status" data-resent-failed>
            {o.resendFailedDone(resendFailed.result.resent)}
          </p>
        ) : null}
        <Problem error={deliveries.error ?? resendFailed.error} />
        {deliveries.data ? (
          deliveries.data.deliveries.length === 0 ? (
            <p class="muted">{t.none}</p>
          ) : (
            <ul class="deliveries">
              {deliveries.data.deliveries.map((d) => (
                <li key={d.deliveryId}>
                  <DeliveryItem id={d.deliveryId} event={d.event} status={d.status} createdAt={d.createdAt} />
                </li>
              ))}
            </ul>
          )
        ) : (
          <p class="muted">{t.loading}</p>
        )}
      </section>
    </Page>
  )
}
