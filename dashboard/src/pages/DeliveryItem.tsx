import { useState } from "preact/hooks"
import { type Delivery, type DeliveryDetail, get, post } from "../api.ts"
import { dateTime } from "../format.ts"
import { useOpsTexts } from "../opsTexts.ts"
import { invalidate, useQuery } from "../query.ts"
import { Confirm, Problem, useAction } from "../ui.tsx"

/**
 * One webhook delivery, expandable to its last attempt: the request as sent (headers, body) and the
 * response (status, first 4 KB, latency) or the error (docs/webhooks.md "Deliveries"). "Resend" asks
 * first, then sends it again with the same webhook-id; the open record refreshes to show the new attempt.
 */
export const DeliveryItem = (props: {
  id: string
  event: string
  status?: string | undefined
  createdAt?: string | undefined
}) => {
  const { t, o } = useOpsTexts()
  const [open, setOpen] = useState(false)
  const [asking, setAsking] = useState(false)
  const key = `delivery:${props.id}`
  const detail = useQuery(
    open ? key : null,
    () => get<DeliveryDetail>(`/api/dashboard/webhooks/deliveries/${props.id}`),
    1_500
  )
  const resend = useAction(async () => {
    const queued = await post<Delivery>(`/api/dashboard/webhooks/deliveries/${props.id}/resend`)
    setAsking(false)
    setOpen(true)
    invalidate(key)
    invalidate("deliveries")
    return queued
  })
  const d = detail.data
  const status = d?.status ?? props.status
  return (
    <div class="delivery" data-delivery={props.id}>
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>
          <strong>{props.event}</strong>{" "}
          {status ? (
            <span class={`badge d-${status}`} data-delivery-status={status}>
              {o.deliveryStatus[status] ?? status}
            </span>
          ) : null}{" "}
          {props.createdAt ? <span class="muted">{dateTime(props.createdAt)}</span> : null}
        </summary>
        <Problem error={detail.error} />
        {d ? (
          <div class="delivery-body">
            <dl class="facts">
              <div>
                <dt>{o.url}</dt>
                <dd class="secret">{d.url}</dd>
              </div>
              <div>
                <dt>{o.attempts}</dt>
                <dd data-attempts>{d.attempts}</dd>
              </div>
              <div>
                <dt>{o.lastAttempt}</dt>
                <dd>{dateTime(d.attemptedAt)}</dd>
              </div>
              <div>
                <dt>{o.nextRetry}</dt>
                <dd>{dateTime(d.nextRetryAt)}</dd>
              </div>
            </dl>
            <h3>{o.requestSent}</h3>
            {d.request ? (
              <>
                <h4>{o.headers}</h4>
                <pre data-request-headers>
                  {Object.entries(d.request.headers)
                    .map(([k, v]) => `${k}: ${v}`)
                    .join("\n")}
                </pre>
                <h4>{o.body}</h4>
                <pre data-request-body>{d.request.body}</pre>
              </>
            ) : (
              <p class="muted">{o.notAttempted}</p>
            )}
            <h3>{o.response}</h3>
            {d.error ? (
              <p class="problem" data-delivery-error>
                {d.error}
              </p>
            ) : null}
            {d.response ? (
              <>
                <p>
                  {o.httpStatus}: <strong data-response-status>{d.response.status ?? "—"}</strong> · {o.latency}:{" "}
                  {d.response.latencyMs === null ? "—" : o.ms(d.response.latencyMs)}
                </p>
                {d.response.body ? (
                  <>
                    <h4>
                      {o.body} ({o.firstKb})
                    </h4>
                    <pre>{d.response.body}</pre>
                  </>
                ) : null}
              </>
            ) : (
              <p class="muted">{o.noResponse}</p>
            )}
          </div>
        ) : open ? (
          <p class="muted">{t.loading}</p>
        ) : null}
      </details>
      <button type="button" class="secondary" disabled={resend.busy} onClick={() => setAsking(true)}>
        {t.resend} <span class="sr-only">{props.event}</span>
      </button>
      {resend.result ? (
        <p class="muted" role="status">
          {o.resent}
        </p>
      ) : null}
      <Problem error={resend.error} />
      {asking ? (
        <Confirm
          open
          titleId={`resend-${props.id}`}
          title={o.resendConfirm(props.event)}
          busy={resend.busy}
          onCancel={() => setAsking(false)}
          onConfirm={() => void resend.run()}
        />
      ) : null}
    </div>
  )
}
